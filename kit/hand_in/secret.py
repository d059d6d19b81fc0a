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

from kit.hand_in.tree import FILE, FOLDER, Refused

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


def secrets_in(inbound: Path, names: list[str]) -> dict[str, tuple[str, int]]:
    """name → (secret, its file's inode change time in ns) of each hand-in of `names` in `inbound` whose secret
    can be read; read without following a link, one hand-in open at a time."""
    found = {}
    inbound_fd = os.open(inbound, FOLDER)
    try:
        for name in names:
            try:
                folder_fd = os.open(name, FOLDER, dir_fd=inbound_fd)
            except OSError:
                continue
            try:
                fd = os.open(SECRET, FILE, dir_fd=folder_fd)
                try:
                    status = os.fstat(fd)
                    if stat.S_ISREG(status.st_mode) and 0 < status.st_size <= MAX_BYTES:
                        found[name] = os.read(fd, MAX_BYTES + 1).decode("utf-8", errors="replace"), status.st_ctime_ns
                finally:
                    os.close(fd)
            except OSError:
                pass
            finally:
                os.close(folder_fd)
    finally:
        os.close(inbound_fd)
    return found
