"""Grading throughput: the kit's path against plain `nbgrader autograde`, in one run.

`python -m benchmarks.grading --students 100 --plain-students 16` builds
scratch courses holding copies of the example class, grades two with
`nbgrader autograde` on the kit's path (one confined child per student; 1,
then 2 students at a time: KIT_GRADING_WORKERS) and one with nbgrader's stock
path (every notebook executed in a kernel, the hidden checks inside), and
checks that the students graded every way get the same score in every cell. Plain nbgrader costs about
ten seconds a student, so by default it grades a subset; seconds per student
are compared, never totals.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.grade import grade_submission
from autograder.grade import REPORT_FILE
from benchmarks.machine import load_average
from tests.shared.course_copy import autograde, class_course, run_nbgrader
from kit.notebooks import ROOT


WORKERS = (1, 2)  # students autograded at once (course.toml [grading] workers)


def _timed(course: Path, grading: str, *args: str) -> float:
    start = time.perf_counter()
    run_nbgrader(course, *args, grading=grading)
    return time.perf_counter() - start


def _cpu_seconds() -> float:
    """CPU seconds of this process and of every child it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed_kit(course: Path, workers: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of every process it started) of one `nbgrader autograde` on the kit's path."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    result = autograde(course, KIT_GRADING_WORKERS=str(workers))
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"autograde with {workers} workers failed:\n{result.stderr[-3000:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def cell_scores(course: Path, students: list[str]) -> dict[tuple[str, str], float]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(s, g.name): g.score for s in students
                for nb in gb.find_submission("attention", s).notebooks for g in nb.grades}


def measure(n_students: int, plain_students: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        kit_courses = {w: Path(scratch) / f"kit{w}" for w in WORKERS}
        plain_course = Path(scratch) / "plain"
        for course in kit_courses.values():
            students = class_course(course, n_students)
        class_course(plain_course, plain_students)
        common = students[:plain_students]
        kit, loads = {}, {}
        for workers, course in kit_courses.items():
            loads[workers] = [load_average()]
            kit[workers] = _timed_kit(course, workers)
            loads[workers].append(load_average())
        loads["plain"] = [load_average()]
        plain_seconds = _timed(plain_course, "in-kernel", "autograde", "attention", "--force")
        loads["plain"].append(load_average())
        kit_scores = {w: cell_scores(c, students) for w, c in kit_courses.items()}
        plain_scores = cell_scores(plain_course, common)
        start, cpu_before = time.perf_counter(), _cpu_seconds()
        for student in common[:8]:
            grade_submission(kit_courses[1] / "submitted" / student / "attention",
                             kit_courses[1] / "source" / "attention")
        grading_only = (time.perf_counter() - start) / min(8, len(common))
        grading_only_cpu = (_cpu_seconds() - cpu_before) / min(8, len(common))
        mismatches = sorted(k for k in plain_scores if kit_scores[1][k] != plain_scores[k])
        tampered = {student: _tampering(kit_courses[1], student) for student, _ in mismatches}
    plain_per_student = plain_seconds / plain_students
    return {
        "students": n_students, "plain_students": plain_students, "cpus": len(os.sched_getaffinity(0)),
        "kit": {w: {"s_per_student": wall / n_students, "cpu_s_per_student": cpu / n_students,
                    "speedup": plain_per_student / (wall / n_students)} for w, (wall, cpu) in kit.items()},
        "plain_s_per_student": plain_per_student, "loads": loads,
        "same_across_workers": all(kit_scores[w] == kit_scores[1] for w in WORKERS),
        "grading_only_s_per_student": grading_only, "grading_only_cpu_s_per_student": grading_only_cpu,
        "same_scores": not mismatches, "mismatches": mismatches[:10],
        "tampered": tampered,
    }


def _tampering(course: Path, student: str) -> list[str]:
    """The read-only cells the kit found changed (and restored) in a student's submission."""
    report = course / "autograded" / student / "attention" / REPORT_FILE
    return json.loads(report.read_text())["tampering"] if report.exists() else []


def feedback_speed() -> dict:
    """What a student waits for: one visible check cell, and the self-learner's whole graders run."""
    import contextlib
    import io
    import subprocess

    from autograder.judge import solution_namespace

    source = ROOT / "source" / "attention"
    sys.path.insert(0, str(source))
    try:
        import judge as shipped_judge  # the copy a student's notebook imports
        answers = solution_namespace(source / "03_softmax_and_mix.ipynb")
        timings = {}
        for name in ("softmax", "attention"):
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                shipped_judge.check(name, answers[name])
            timings[name] = time.perf_counter() - start
    finally:
        sys.path.remove(str(source))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "autograder", f"--submission={source}", "-q", "-p",
                    "no:cacheprovider"], cwd=ROOT, capture_output=True, check=True)
    return {"visible_check_s": timings, "self_learner_s": time.perf_counter() - start}


def report(m: dict) -> str:
    one, two = m["kit"][1], m["kit"][2]
    nbgrader_cpu = one["cpu_s_per_student"] - m["grading_only_cpu_s_per_student"]
    lines = [
        "## Grading throughput",
        "",
        f"The kit's path graded {m['students']} students with 1 and with 2 workers (course.toml `[grading] "
        f"workers`); plain nbgrader graded the first {m['plain_students']} of them (the same submissions), in the "
        f"same run. {m['cpus']} CPUs. Load average (1, 5, 15 min) before / after each: "
        + "; ".join(f"{'plain' if k == 'plain' else f'{k} worker(s)'}: {a} / {b}" for k, (a, b) in m["loads"].items())
        + ".",
        "",
        "| path | seconds per student | CPU seconds per student | speed-up over plain |",
        "|---|---|---|---|",
        f"| plain `nbgrader autograde` (kernel per notebook) | {m['plain_s_per_student']:.2f} | | 1 |",
        *[f"| the kit, {w} worker{'s' if w > 1 else ''} (`nbgrader autograde`, one confined child per student) | "
          f"{k['s_per_student']:.3f} | {k['cpu_s_per_student']:.2f} | **{k['speedup']:.1f}×** |"
          for w, k in m["kit"].items()],
        f"| grading proper, one student alone (child start, answers, comparisons) | "
        f"{m['grading_only_s_per_student']:.3f} | {m['grading_only_cpu_s_per_student']:.2f} | |",
        "",
        f"Same gradebook with 1 and 2 workers: {'yes' if m['same_across_workers'] else 'NO'}. "
        f"Same score in every graded cell as plain nbgrader: "
        f"{'yes' if m['same_scores'] else 'NO: ' + str(m['mismatches'])}.",
        *[f"{student} changed read-only cells ({'; '.join(lines)}): the kit restores them before grading, plain "
          "nbgrader grades what the student left (issue 5), so their scores may differ."
          for student, lines in m.get("tampered", {}).items() if lines],
        "",
        f"Where the time goes: a student costs {one['cpu_s_per_student']:.2f} CPU seconds with one worker: about "
        f"{m['grading_only_cpu_s_per_student']:.2f} s of grading proper (the confined child: Python, numpy, the "
        f"student's cells, the hidden cases; the comparisons) and {nbgrader_cpu:.2f} s of nbgrader's own work on "
        "nine notebooks (reading and validating each notebook after every preprocessor, sanitizing, overwriting "
        "read-only cells from the gradebook, writing the autograded copy, a gradebook commit for every cell's "
        f"grade). With 2 workers the CPU cost per student is {two['cpu_s_per_student']:.2f} s and the wall time "
        f"{two['s_per_student']:.2f} s: the {m['cpus']} cores were busy "
        f"{two['cpu_s_per_student'] / (two['s_per_student'] * m['cpus']):.0%} of the run (the rest: the worker "
        "waiting for its student's child, gradebook writes taking turns on SQLite, other programs on the machine).",
    ]
    if "feedback" in m:
        f = m["feedback"]
        checks = ", ".join(f"`{k}` {v * 1000:.0f} ms" for k, v in f["visible_check_s"].items())
        lines += ["", "## Feedback speed", "",
                  f"A visible check cell, as the student runs it: {checks}.",
                  f"A self-learner's run of the hidden graders over the whole assignment "
                  f"(`pytest autograder --submission ...`, every exercise): {f['self_learner_s']:.1f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--plain-students", type=int, default=16)
    args = parser.parse_args()
    m = measure(args.students, args.plain_students)
    m["feedback"] = feedback_speed()
    print(report(m))


if __name__ == "__main__":
    main()
