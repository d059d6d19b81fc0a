"""What confinement costs per student: the start of one grading child, by confinement.

    .venv/bin/python -m benchmarks.confinement [--runs 30]

Each student's grading starts one child (more only after a crash or a
time-out). This times, for each confinement the machine allows and for none,
the start of a child through `sandbox.start` to its exit: Python alone
(`python -I -c pass`) and Python importing NumPy as child.py does. The runs of
the confinements take turns (unconfined, bubblewrap, namespaces, unconfined,
...), so that a machine busy with other work slows each alike. It reports the
median wall time and its interquartile range in milliseconds, and the
median's difference from unconfined: the cost per student.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import sandbox

PROGRAMS = {"python -I -c pass": "pass", "python -I -c 'import numpy'": "import numpy"}


def start_and_wait(how: str, program: str, world: sandbox.World) -> float:
    """Wall seconds from starting the child to its exit."""
    started = time.perf_counter()
    child = sandbox.start([sys.executable, "-I", "-c", program], world, sandbox.Limits(), how,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"})
    _, err = child.communicate()
    if child.returncode:
        raise RuntimeError(f"{how}: {err.decode()[-500:]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    kinds = [sandbox.UNCONFINED] + [k for k in (sandbox.BUBBLEWRAP, sandbox.NAMESPACES) if sandbox._trial(k) is None]
    scratch = Path(tempfile.mkdtemp(prefix="attention-grading-bench-"))
    (scratch / "work").mkdir()
    world = sandbox.World((), Path(sys.prefix), Path(sys.base_prefix), scratch)
    print(f"| child | {' | '.join(kinds)} |")
    print(f"|---|{'---|' * len(kinds)}")
    try:
        for label, program in PROGRAMS.items():
            times: dict[str, list[float]] = {how: [] for how in kinds}
            for _ in range(args.runs):
                for how in kinds:
                    times[how].append(1000 * start_and_wait(how, program, world))
            base = statistics.median(times[sandbox.UNCONFINED])
            cells = []
            for how in kinds:
                ordered = sorted(times[how])
                median = statistics.median(ordered)
                q1, q3 = ordered[len(ordered) // 4], ordered[3 * len(ordered) // 4]
                extra = "" if how == sandbox.UNCONFINED else f", {median - base:+.0f} ms"
                cells.append(f"{median:.0f} ms ({q1:.0f}-{q3:.0f}{extra})")
            print(f"| {label} | {' | '.join(cells)} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
