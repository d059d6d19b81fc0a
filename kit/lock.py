"""One grading run at a time on a gradebook.

nbgrader_config.py calls `hold_grading_lock` when the command is `autograde`:
a second run started while one is going waits for it (saying so), then
proceeds; the lock is released when the process ends, even if it is killed.
A command run inside a longer process (`make demo`) holds `grading_lock`
for the run only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

_held = None


def _acquire(root: Path):
    handle = open(root / "gradebook.db.lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        print(f"Another grading run ({holder}) is using this gradebook: waiting for it to finish.",
              file=sys.stderr, flush=True)
        fcntl.flock(handle, fcntl.LOCK_EX)
    handle.truncate(0)
    handle.write(f"pid {os.getpid()}")
    handle.flush()
    return handle


def hold_grading_lock(root: Path) -> None:
    """Until this process ends."""
    global _held
    if _held is None:
        _held = _acquire(root)


@contextlib.contextmanager
def grading_lock(root: Path):
    """While the block runs."""
    handle = _acquire(root)
    try:
        yield
    finally:
        handle.close()
