"""README's loop on a class of 1,500 students, command by command, and what each command costs per student.

    .venv/bin/python -m benchmarks.large_class                      # 1,500 students, and 100 and 500 for the growth
    .venv/bin/python -m benchmarks.large_class --students 100 500   # classes of 100 and 500 only
    .venv/bin/python -m benchmarks.large_class --write              # ... and put the section in benchmarks/REPORT.md

For each class size it makes a scratch course (from git's index), releases
the assignment, hands the class in to the course's own exchange
(benchmarks/varied_class.py: honest, untouched, half done, known mistakes,
late, read-only cells changed, one unreadable notebook), and runs README's
commands as an instructor types them, each as a process of its own
(benchmarks/measured_command.py): the roster's import, collect, autograde,
generate_feedback, release_feedback, the class report and the export. Each
step's wall and CPU seconds per student, and its largest process's peak
memory, go in one table per class size; a second table says how each step's
CPU per student grows with the class. Then a class of `--in-kernel` students
(the first of the same class) is autograded on the kit's path and on
nbgrader's stock path (KIT_GRADING=in-kernel), one after the other, for the
ratio. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine import cpu_model, load_average
from benchmarks.measured_command import Measured, run_measured
from benchmarks.report_section import publish
from benchmarks.varied_class import hand_in_class
from kit.course import ASSIGNMENT
from kit.nbgrader_cli import command, environment
from tests.shared.course_copy import copy_course

HEADING = "## A large class through the whole loop (issue 38)"
SETUP = [("release", ["generate_assignment", ASSIGNMENT, "--force"]),
         ("release_assignment", ["release_assignment", ASSIGNMENT, "--force"]),
         ("roster", ["db", "student", "import", "roster.csv"])]
LOOP = [("collect", command("collect", ASSIGNMENT)),
        ("autograde", command("autograde", ASSIGNMENT)),
        ("generate_feedback", command("generate_feedback", ASSIGNMENT)),
        ("release_feedback", command("release_feedback", ASSIGNMENT)),
        ("report", [sys.executable, "-m", "kit.report", ASSIGNMENT]),
        ("export", command("export", "--to", "grades.csv"))]


def say(what: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}, load {load_average()}] {what}", file=sys.stderr, flush=True)


def _step(course: Path, name: str, argv: list[str], env: dict[str, str], check: bool = True) -> Measured:
    measured = run_measured(argv, course, env)
    if check and measured.returncode != 0:
        raise RuntimeError(f"{name} failed ({measured.returncode}):\n{measured.stderr_tail}")
    say(f"{name}: {measured.wall_s:.1f} s, CPU {measured.cpu_s:.1f} s "
        f"(all processes {measured.confined_cpu_s or 0:.1f} s), peak {measured.peak_mib:.0f} MiB")
    return measured


def through_the_loop(scratch: Path, n_students: int, grading: str = "out-of-process",
                     steps: list[tuple[str, list[str]]] = LOOP, name: str = "course") -> dict[str, Measured]:
    """A course of `n_students` handed in (in scratch/<name>-<n>-<grading>), then each of `steps` measured:
    step → Measured."""
    course = copy_course(scratch / f"{name}-{n_students}-{grading}")
    env = environment(grading)
    for name, args in SETUP[:2]:
        _step(course, name, command(*args), env)
    say(f"handing in {n_students} students")
    composition = hand_in_class(course, n_students)
    _step(course, SETUP[2][0], command(*SETUP[2][1]), env)
    # nbgrader's stock path ends with an error when it could not grade a student (the unreadable notebook's)
    measured = {name: _step(course, name, argv, env, check=grading != "in-kernel") for name, argv in steps}
    measured["composition"] = composition
    return measured


def _per(seconds: float | None, n: int) -> str:
    return "?" if seconds is None else f"{seconds / n:.3f}"


def size_table(n: int, measured: dict[str, Measured]) -> list[str]:
    lines = [f"### {n:,} students", "",
             "| step | wall s | wall s per student | CPU s per student (rusage) | CPU s per student (every process) "
             "| peak MiB (largest process) | load average before → after |", "|---|---|---|---|---|---|---|"]
    steps = [name for name, _ in LOOP if name in measured]
    for name in steps:
        m = measured[name]
        lines.append(f"| {name} | {m.wall_s:.1f} | {_per(m.wall_s, n)} | {_per(m.cpu_s, n)} | "
                     f"{_per(m.confined_cpu_s, n)} | {m.peak_mib:.0f} | {m.load_before[0]:.1f} → {m.load_after[0]:.1f} |")
    total = [measured[name] for name in steps]
    wall, cpu = sum(m.wall_s for m in total), sum(m.cpu_s for m in total)
    every = None if any(m.confined_cpu_s is None for m in total) else sum(m.confined_cpu_s for m in total)
    lines.append(f"| **every step** | **{wall:.0f}** ({wall / 60:.1f} min) | {_per(wall, n)} | {_per(cpu, n)} | "
                 f"{_per(every, n)} | {max(m.peak_mib for m in total):.0f} | |")
    both = [measured[s] for s in ("autograde", "generate_feedback") if s in measured]
    if len(both) == 2:
        lines += ["", f"autograde + generate_feedback: {_per(sum(m.cpu_s for m in both), n)} CPU s per student "
                      f"(rusage), {_per(sum(m.confined_cpu_s or 0 for m in both), n)} counting every process."]
    lines.append(f"\nThe class: {', '.join(f'{k} {v}' for k, v in sorted(measured['composition'].items()))}.")
    return lines + [""]


def growth_table(runs: dict[int, dict[str, Measured]]) -> list[str]:
    sizes = sorted(runs)
    lines = ["### How each step grows with the class", "",
             "CPU seconds per student, every process counted (the confined children too), and the largest process's "
             "peak memory:", "",
             "| step | " + " | ".join(f"{n:,}: CPU s per student | peak MiB" for n in sizes) +
             f" | CPU per student, {sizes[-1]:,} / {sizes[0]:,} |", "|---" * (2 * len(sizes) + 2) + "|"]
    for name, _ in LOOP:
        cells, first, last = [], None, None
        for n in sizes:
            m = runs[n][name]
            cpu = m.confined_cpu_s if m.confined_cpu_s is not None else m.cpu_s
            first = cpu / n if first is None else first
            last = cpu / n
            cells += [f"{cpu / n:.3f}", f"{m.peak_mib:.0f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {last / first:.2f} |")
    return lines + [""]


def comparison(scratch: Path, n_students: int) -> list[str]:
    """The same class autograded on the kit's path and on nbgrader's stock path, one after the other."""
    graded = {grading: through_the_loop(scratch, n_students, grading, LOOP[:2], "compared")["autograde"]
              for grading in ("out-of-process", "in-kernel")}
    kit, stock = graded["out-of-process"], graded["in-kernel"]
    cpu = lambda m: m.confined_cpu_s if m.confined_cpu_s is not None else m.cpu_s  # noqa: E731
    return ["### The kit's grading beside nbgrader's stock path", "",
            f"The first {n_students} students of the same class, autograded one path after the other in this run "
            "(KIT_GRADING=in-kernel: every notebook executed in a kernel with the hidden checks in it):", "",
            "| path | wall s per student | CPU s per student (every process) | load average before → after |",
            "|---|---|---|---|",
            f"| nbgrader's stock path | {stock.wall_s / n_students:.2f} | {cpu(stock) / n_students:.2f} | "
            f"{stock.load_before[0]:.1f} → {stock.load_after[0]:.1f} |",
            f"| the kit | {kit.wall_s / n_students:.3f} | {cpu(kit) / n_students:.3f} | "
            f"{kit.load_before[0]:.1f} → {kit.load_after[0]:.1f} |", "",
            f"nbgrader's stock path ended with status {stock.returncode} (0: every student graded; 1: it could not "
            "grade some, as the unreadable notebook's student, and said so); the kit's with "
            f"{kit.returncode}.", "",
            f"**The kit is {stock.wall_s / kit.wall_s:.0f}× faster on the clock and {cpu(stock) / cpu(kit):.0f}× "
            "cheaper in CPU.**", ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[100, 500, 1500],
                        help="class sizes, each through the whole loop (default: 100 500 1500)")
    parser.add_argument("--in-kernel", type=int, default=8, help="students graded on both paths (0: none)")
    parser.add_argument("--write", action="store_true", help="put the section in benchmarks/REPORT.md")
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    runs = {}
    with tempfile.TemporaryDirectory(prefix="large-class-") as scratch:
        for n in sorted(args.students):
            say(f"class of {n}")
            runs[n] = through_the_loop(Path(scratch), n)
        compared = comparison(Path(scratch), args.in_kernel) if args.in_kernel else []
    lines = [HEADING, "",
             f"`.venv/bin/python -m benchmarks.large_class{' ' + ' '.join(argv or sys.argv[1:]) if (argv or sys.argv[1:]) else ''}`, "
             f"started {started}, ended {time.strftime('%H:%M')}; {cpu_model()}, {len(os.sched_getaffinity(0))} cores; "
             f"load average at the end {load_average()}. CPU counted two ways: getrusage(RUSAGE_CHILDREN) around "
             "each command (what its processes reaped), and a cpuacct control group around it (every process, the "
             "confined grading children too, whose CPU is reaped inside their own PID namespace and reaches no "
             "rusage).", ""]
    for n, measured in runs.items():
        lines += size_table(n, measured)
    if len(runs) > 1:
        lines += growth_table(runs)
    lines += compared
    return publish(HEADING, "\n".join(lines), args.write)


if __name__ == "__main__":
    sys.exit(main())
