"""One grading run at a time on a gradebook.

The kit's autograde converter (autograde.py) holds `grading_lock` while it
runs, on the command line and inside a longer process (`make demo`) alike: a
second run started while one is going waits for it (saying so), then
proceeds; the lock is released when the run ends, or when its process does,
even if it is killed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path


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


@contextlib.contextmanager
def grading_lock(root: Path):
    """While the block runs."""
    handle = _acquire(root)
    try:
        yield
    finally:
        handle.close()
