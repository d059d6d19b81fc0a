"""What grading one student costs, in CPU seconds: the grader, its confined child, and the hidden cases.

    .venv/bin/python -m benchmarks.per_student [--repeat 1]

Grades the eight example students (examples/class/submitted/*) with
`grade_submission`, as `nbgrader autograde` does for each student, and prints
one JSON line:

- ``cases_cpu_s``: this process's CPU building every exercise's hidden cases
  (once per process: `autograder.cases.hidden_cases`);
- ``parent_cpu_s`` / ``child_cpu_s``: this process's CPU, and that of the
  grading children (every process of their confined world, read from /proc
  just before the grader stops them; a child that died on its own is not
  counted), over all the students;
- ``stand_in_cpu_s``: the stand-in servers' CPU (the reference answering the
  calls of what each answer is built on: autograder/stand_in_server.py);
- ``wall_s``: the grading's wall time (on a shared machine, read the CPU figures).

Run it in turns with another version of the kit (same machine state) to
compare, one process per run, as nothing is cached between runs: from a
checkout of the other version (`git archive REV | tar -x -C DIR`), `cd DIR &&
/path/to/kit/.venv/bin/python -m benchmarks.per_student` imports DIR's code.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from autograder import stand_in_server
from autograder.cases import EXERCISES, hidden_cases
from autograder.grade import grade_submission
from autograder.sandbox import _children
from autograder.grading_child import GradingChild
from kit.notebooks import ROOT

STUDENTS = ROOT / "examples" / "class" / "submitted"
TICK = os.sysconf("SC_CLK_TCK")
children_cpu = [0.0]  # the grading children's CPU seconds so far


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its descendants (and of the children they waited for)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    own = sum(int(f) for f in fields[11:15]) / TICK  # utime, stime, cutime, cstime
    return own + sum(_tree_cpu(child) for child in _children(pid))


def _counting(stop):
    def counted_stop(self):
        if self.process.poll() is None:
            children_cpu[0] += _tree_cpu(self.process.pid)
        stop(self)
    return counted_stop


GradingChild.stop = _counting(GradingChild.stop)


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(repeat: int = 1) -> dict:
    start = _cpu(resource.RUSAGE_SELF)
    for name in EXERCISES:
        hidden_cases(name)
    cases_cpu = _cpu(resource.RUSAGE_SELF) - start
    folders = sorted(p / "attention" for p in STUDENTS.iterdir() if (p / "attention").is_dir()) * repeat
    parent, child, wall = _cpu(resource.RUSAGE_SELF), children_cpu[0], time.perf_counter()
    scores = [sum(c.earned for c in grade_submission(folder).cells.values()) for folder in folders]
    servers = [server.process.pid for kept in stand_in_server._idle.values() for server in kept]
    return {"students": len(folders), "cases_cpu_s": round(cases_cpu, 3),
            "parent_cpu_s": round(_cpu(resource.RUSAGE_SELF) - parent, 3),
            "child_cpu_s": round(children_cpu[0] - child, 3),
            "stand_in_cpu_s": round(sum(_tree_cpu(pid) for pid in servers), 3),
            "wall_s": round(time.perf_counter() - wall, 3), "scores": scores}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="grade the eight students this many times")
    print(json.dumps(measure(parser.parse_args().repeat)))


if __name__ == "__main__":
    main()
