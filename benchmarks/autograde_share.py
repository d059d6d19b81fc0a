"""Where the CPU of one `nbgrader autograde` goes: nbgrader's own work, the kit's grader, the confined children.

    .venv/bin/python -m benchmarks.autograde_share [--students 8]

Makes a scratch course of the example class (`--students` copies, one of each
kind first), then runs `nbgrader autograde` in a process of its own
(kit.nbgrader_cli.run_here), one student at a time (KIT_GRADING_WORKERS=1). In that process nbgrader's loop
(reading, sanitizing, the kit's preprocessors, writing the autograded
notebooks and the gradebook) runs in the main thread, and the kit's grader
(autograder.grade, the comparisons) in the grading run's thread, so the
process's CPU splits exactly:

- ``nbgrader_cpu_s``: the main thread (nbgrader's own work, with the imports
  and the configuration it loads);
- ``grader_cpu_s``: every other thread of the process (the grader's side of
  each student's grading, the hidden cases built).

The confined grading children are not counted here: the grader stops each
child's whole process tree, so no process waits for the last of them and
their CPU reaches no one's rusage; benchmarks.per_student reads it from /proc.

Prints one JSON line. Run it in turns with another version of the kit (same
machine state) to compare: from a git worktree of the other version, `cd DIR
&& /path/to/kit/.venv/bin/python -m benchmarks.autograde_share` imports DIR's code
(the scratch course is made from DIR's git index). Not a test: nothing here
asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kit.course import ASSIGNMENT

_MEASURED = """
import os, resource, sys, time
sys.path.insert(0, os.getcwd())
started = time.thread_time()
from kit import nbgrader_cli
nbgrader_cli.run_here("autograde", {assignment!r}, "--force", cwd=os.getcwd(), grading="out-of-process")
own = resource.getrusage(resource.RUSAGE_SELF)
main = time.thread_time() - started
print("CPU", main, own.ru_utime + own.ru_stime - main)
"""


def measure(students: int = 8) -> dict:
    from tests.shared.course_copy import class_course

    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch) / "course"
        class_course(course, students)
        env = {**os.environ, "KIT_GRADING_WORKERS": "1"}
        wall = time.perf_counter()
        result = subprocess.run([sys.executable, "-c", _MEASURED.format(assignment=ASSIGNMENT)], cwd=course,
                                env=env, capture_output=True, text=True, timeout=3600)
        wall = time.perf_counter() - wall
    if result.returncode != 0:
        raise RuntimeError(f"autograde failed:\n{result.stderr[-3000:]}")
    main, threads = map(float, result.stdout.split("CPU")[-1].split())
    return {"students": students, "wall_s": round(wall, 2), "nbgrader_cpu_s": round(main, 2),
            "grader_cpu_s": round(threads, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=8, help="students in the scratch class")
    print(json.dumps(measure(parser.parse_args().students)))


if __name__ == "__main__":
    main()
