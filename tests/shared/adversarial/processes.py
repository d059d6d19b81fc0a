"""Ending what a test or the comparison script started: a process and every process below it.

The kit's grading children leave their parent's session (sandbox.start
calls setsid), so a process group kill misses them; they are found by their
parent's pid instead, and the grading folders they name (which their killed
parent can no longer remove) are removed with them.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, parents first."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        ppid = int(re.search(r"^PPid:\s*(\d+)", status, re.MULTILINE).group(1))
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children.get(found[-1], [])
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and its descendants, then remove the grading folders they named."""
    found = descendants(pid)
    scratch = set()
    for each in found:
        try:
            for arg in Path(f"/proc/{each}/cmdline").read_text().split("\x00"):
                scratch.update(re.findall(r"^(.*/attention-grading-[^/]+)", arg))
        except OSError:
            pass
    for each in reversed(found):
        try:
            os.kill(each, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for folder in scratch:
        shutil.rmtree(folder, ignore_errors=True)
