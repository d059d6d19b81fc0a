"""A submission's secret, the file nbgrader's submit writes into every hand-in and the student's own cache.

The student's `nbgrader fetch_feedback` finds each released page by a hash of
this secret and the notebook's name, so a hand-in without one can get no
feedback (collect refuses it), and two students holding one secret would get
pages of one name (release_feedback releases neither, collect refuses the copy).
`read_secret(folder)` returns it as fetch_feedback reads it, or raises Refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kit.hand_in.tree import FILE, Refused

SECRET = "submission_secret.txt"
MAX_BYTES = 1024  # nbgrader's is 128 hexadecimal digits


def read_secret(folder: Path) -> str:
    """The secret in `folder`, read without following a link; Refused if it is missing, empty or not a file."""
    try:
        fd = os.open(Path(folder) / SECRET, FILE)
    except FileNotFoundError:
        raise Refused(f"it holds no {SECRET} (nbgrader's submit writes one)") from None
    except OSError as e:
        raise Refused(f"its {SECRET} cannot be read: {e.strerror}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refused(f"its {SECRET} is not a file")
        if status.st_size > MAX_BYTES:
            raise Refused(f"its {SECRET} is {status.st_size} bytes, not nbgrader's secret")
        secret = os.read(fd, MAX_BYTES + 1).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
    if not secret.strip():
        raise Refused(f"its {SECRET} is empty")
    return secret
