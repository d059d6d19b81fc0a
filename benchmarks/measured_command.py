"""One command run as its own process, and what it cost: wall seconds, CPU seconds, peak memory.

    measured = run_measured(["nbgrader", "autograde", "attention"], cwd=course)

- ``cpu_s``: getrusage(RUSAGE_CHILDREN) before and after: the CPU of the
  command and of every process it started and waited for.
- ``confined_cpu_s``: the same command's CPU as the kernel counts it for every
  process it ever started, read from a cpuacct control group made for it
  (root, cgroup v1 or v2), or None where none can be made. It is larger than
  ``cpu_s`` by the grading children: each runs in a PID namespace of its own
  (autograder/sandbox.py), whose processes are reaped inside it, so their CPU
  never reaches the grader's rusage.
- ``peak_mib``: the largest resident memory of any one process of the command
  (wait4's ru_maxrss: the command's own and its waited-for descendants').
- the load average (1, 5, 15 minutes) before and after.
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOTS = (Path("/sys/fs/cgroup/cpuacct"), Path("/sys/fs/cgroup/cpu,cpuacct"), Path("/sys/fs/cgroup/unified"),
                Path("/sys/fs/cgroup"))


@dataclass
class Measured:
    argv: list[str]
    returncode: int
    wall_s: float
    cpu_s: float
    confined_cpu_s: float | None
    peak_mib: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    stderr_tail: str


class _CpuGroup:
    """A control group counting the CPU of every process put in it (v1's cpuacct.usage, v2's cpu.stat)."""

    def __init__(self):
        self.folder = None
        for root in CGROUP_ROOTS:
            v1 = (root / "cpuacct.usage").exists()
            if not (v1 or (root / "cgroup.controllers").exists()):
                continue
            folder = root / f"kit-benchmark-{os.getpid()}-{time.monotonic_ns()}"
            try:
                folder.mkdir()
                if v1 or (folder / "cpu.stat").exists():
                    self.folder, self.v1 = folder, v1
                    return
                folder.rmdir()
            except OSError:
                continue

    def join(self) -> None:
        """In the command's process, before it execs."""
        if self.folder is not None:
            (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float | None:
        if self.folder is None:
            return None
        if self.v1:
            return int((self.folder / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def remove(self) -> None:
        if self.folder is not None:
            for _ in range(50):  # its last processes may still be leaving it
                try:
                    self.folder.rmdir()
                    return
                except OSError:
                    time.sleep(0.1)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Measured:
    """Run `argv` in `cwd` and measure it; its standard error's tail is kept, its output dropped."""
    group = _CpuGroup()
    load_before, cpu_before, start = os.getloadavg(), _children_cpu(), time.perf_counter()
    with open(os.devnull, "w") as devnull, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=devnull, stderr=err, preexec_fn=group.join)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_before
        err.seek(0)
        tail = err.read()[-4000:].decode(errors="replace")
    confined = group.cpu_s()
    group.remove()
    return Measured(list(argv), process.returncode, wall, cpu, confined, usage.ru_maxrss / 1024, load_before,
                    os.getloadavg(), tail)
