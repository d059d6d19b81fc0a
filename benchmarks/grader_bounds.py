"""What a student costs the grader: CPU, clock, memory and disk for each fixture that attacks it, beside an honest student.

    .venv/bin/python -m benchmarks.grader_bounds [--code DIR] [--cap 90] [--seconds-per-call 10]

Builds the honest student (the solved notebooks) and the fixtures that attack
the grader's reading and writing (tests/shared/adversarial/fixtures: floods, frames
just under the limit, a trickled huge array, a process left behind, a stand-in
answer never read; issue 22) or its memory and disk (a quadratic stand-in
answer, one hidden in a list, a disk filled, 4 MiB error messages; issue 43),
then grades each one alone, with `grade_submission` and
the kit's limits, in a process of its own that runs the code of DIR (default:
this checkout; for the code before a change, a copy of that version:
`git archive main | tar -x -C DIR`). The hidden cases are built before the
clock starts. A grading still running after --cap seconds is killed and
reported as "> cap". Prints one JSON line per student: the grading process's
CPU seconds (the grader's, not its confined child's), its wall seconds, the
score, the grading process's peak memory beyond what it held before grading
(`grader_mib`), the stand-in server's peak (`stand_in_mib`), the grader's
scratch folder for the student (`scratch_kib`: what the grader writes on disk
besides the child's capped tmpfs) and the grading report's size (`report_kib`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kit.notebooks import ROOT
from tests.shared.adversarial.build import SOLVED, fixtures
from tests.shared.adversarial.processes import kill_tree

ATTACKS = ("floods_the_reply_pipe", "sends_frames_just_under_the_limit", "trickles_a_huge_array",
           "leaves_a_process_that_replies", "asks_for_a_large_stand_in_answer_and_never_reads_it",
           "asks_a_stand_in_for_a_quadratic_answer", "hides_arrays_in_lists_for_a_stand_in", "fills_the_disk",
           "floods_its_messages")
TICK = os.sysconf("SC_CLK_TCK")
GRADE = """
import json, os, sys, time
from functools import partial
import autograder.grade
from autograder import stand_in_server
from autograder.cases import build_every_hidden_case
from autograder.submission import Submission

def status(field, pid="self"):
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith(field + ":"))

scratch = []
class Measured(Submission):
    def close(self):
        scratch.append(sum(f.stat().st_size for f in self._scratch.rglob("*") if f.is_file()))
        super().close()

autograder.grade.Submission = partial(Measured, seconds_per_call=float(sys.argv[2]))
build_every_hidden_case()
print(json.dumps({"cpu_s": time.process_time()}), flush=True)
before = status("VmRSS")
start = time.monotonic()
report = autograder.grade.grade_submission(sys.argv[1])
servers = [s.process.pid for kept in stand_in_server._idle.values() for s in kept]
cells = report.cells.values()
print(json.dumps({"cpu_s": time.process_time(), "wall_s": time.monotonic() - start,
                  "score": sum(c.earned for c in cells), "of": sum(c.possible for c in cells),
                  "grader_mib": (status("VmHWM") - before) / 1024,
                  "stand_in_mib": max([status("VmHWM", pid) / 1024 for pid in servers], default=0),
                  "scratch_kib": scratch[0] / 1024,
                  "report_kib": len(json.dumps(report.plain())) / 1024}))
"""


def _cpu(pid: int) -> float:
    """A live process's own CPU seconds (not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def graded(folder: Path, code: Path, cap: float, seconds_per_call: float) -> dict:
    """{"grader_cpu_s", "wall_s", "score"} of grading `folder` with the code in `code`, stopped after `cap` s."""
    grading = subprocess.Popen([sys.executable, "-c", GRADE, str(folder), str(seconds_per_call)], cwd=code,
                               stdout=subprocess.PIPE, text=True)
    started = json.loads(grading.stdout.readline())["cpu_s"]  # imports and hidden cases done
    start = time.monotonic()
    try:
        output, _ = grading.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        cpu = _cpu(grading.pid) - started
        kill_tree(grading.pid)
        grading.communicate()
        return {"grader_cpu_s": f"> {cpu:.1f}", "wall_s": f"> {cap:g}", "score": None}
    if grading.returncode:
        return {"failed": grading.returncode, "wall_s": round(time.monotonic() - start, 1)}
    done = json.loads(output)
    return {"grader_cpu_s": round(done["cpu_s"] - started, 2), "wall_s": round(done["wall_s"], 1),
            "score": f"{done['score']:g}/{done['of']:g}",
            **{key: round(done[key], 1) for key in ("grader_mib", "stand_in_mib", "scratch_kib", "report_kib")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the kit whose grader is measured")
    parser.add_argument("--cap", type=float, default=90.0, help="seconds before a grading is killed")
    parser.add_argument("--seconds-per-call", type=float, default=10.0, help="the kit's time limit per call")
    parser.add_argument("--only", nargs="*", default=None, help="these students only (honest, or fixture names)")
    args = parser.parse_args()
    found = fixtures()
    with tempfile.TemporaryDirectory(prefix="grader-bounds-") as scratch:
        for name in args.only or ("honest", *ATTACKS):
            folder = Path(scratch) / name / "attention"
            shutil.copytree(SOLVED, folder) if name == "honest" else found[name].build(folder)
            print(json.dumps({"student": name, **graded(folder, args.code, args.cap, args.seconds_per_call)}),
                  flush=True)


if __name__ == "__main__":
    main()
