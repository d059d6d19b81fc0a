"""Grading throughput: the kit's path against plain `nbgrader autograde`, in one run.

`python -m benchmarks.grading --students 100 --plain-students 16` builds two
scratch courses holding copies of the example class, grades one with
`nbgrader autograde` on the kit's path (one confined child per student, two
students at a time) and the other with nbgrader's stock path (every notebook
executed in a kernel, the hidden checks inside), and checks that the students
graded both ways get the same score in every cell. Plain nbgrader costs about
ten seconds a student, so by default it grades a subset; seconds per student
are compared, never totals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.grade import grade_submission
from autograder.grade import REPORT_FILE
from kit.course_copy import class_course, run_nbgrader
from kit.notebooks import ROOT


def _timed(course: Path, grading: str, *args: str) -> float:
    start = time.perf_counter()
    run_nbgrader(course, *args, grading=grading)
    return time.perf_counter() - start


def cell_scores(course: Path, students: list[str]) -> dict[tuple[str, str], float]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(s, g.name): g.score for s in students
                for nb in gb.find_submission("attention", s).notebooks for g in nb.grades}


def measure(n_students: int, plain_students: int) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        kit_course, plain_course = Path(scratch) / "kit", Path(scratch) / "plain"
        students = class_course(kit_course, n_students)
        class_course(plain_course, plain_students)
        common = students[:plain_students]
        kit_seconds = _timed(kit_course, "out-of-process", "autograde", "attention", "--force")
        plain_seconds = _timed(plain_course, "in-kernel", "autograde", "attention", "--force")
        kit_scores, plain_scores = cell_scores(kit_course, common), cell_scores(plain_course, common)
        start = time.perf_counter()
        for student in common[:8]:
            grade_submission(kit_course / "submitted" / student / "attention", kit_course / "source" / "attention")
        grading_only = (time.perf_counter() - start) / min(8, len(common))
        mismatches = sorted(k for k in kit_scores if kit_scores[k] != plain_scores.get(k))
        tampered = {student: _tampering(kit_course, student) for student, _ in mismatches}
    return {
        "students": n_students, "plain_students": plain_students, "cpus": os.cpu_count(),
        "kit_s_per_student": kit_seconds / n_students, "plain_s_per_student": plain_seconds / plain_students,
        "speedup": (plain_seconds / plain_students) / (kit_seconds / n_students),
        "grading_only_s_per_student": grading_only, "same_scores": not mismatches, "mismatches": mismatches[:10],
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
    lines = [
        "## Grading throughput",
        "",
        f"The kit's path graded {m['students']} students; plain nbgrader graded the first "
        f"{m['plain_students']} of them (the same submissions). {m['cpus']} CPUs.",
        "",
        "| path | seconds per student |",
        "|---|---|",
        f"| plain `nbgrader autograde` (kernel per notebook) | {m['plain_s_per_student']:.2f} |",
        f"| the kit (`nbgrader autograde`, one confined child per student, 2 at a time) | "
        f"{m['kit_s_per_student']:.3f} |",
        f"| of which grading proper, one student alone (child start, answers, comparisons) | "
        f"{m['grading_only_s_per_student']:.3f} |",
        "",
        f"**Speed-up: {m['speedup']:.1f}×.** Same score in every graded cell: "
        f"{'yes' if m['same_scores'] else 'NO: ' + str(m['mismatches'])}.",
        *[f"{student} changed read-only cells ({'; '.join(lines)}): the kit restores them before grading, plain "
          "nbgrader grades what the student left (issue 5), so their scores may differ."
          for student, lines in m.get("tampered", {}).items() if lines],
        "",
        f"Where the time goes: grading proper runs {m['cpus']} students at a time, so per student it costs about "
        f"{m['grading_only_s_per_student'] / m['cpus']:.2f} s of the {m['kit_s_per_student']:.2f} s; the other "
        f"{m['kit_s_per_student'] - m['grading_only_s_per_student'] / m['cpus']:.2f} s is nbgrader's own work on "
        "the student's nine notebooks, one after another in its main thread (reading, sanitizing, overwriting "
        "read-only cells from the gradebook, writing the autograded copy, saving every cell's grade and the late "
        "penalty to the gradebook). Starting the child (Python and numpy) is about 0.2 s of a student's grading "
        "proper, which is why a fork server would buy little here.",
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
