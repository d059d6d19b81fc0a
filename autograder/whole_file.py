"""A file written whole: readers see the old file or the new one, never part of the new.

The bytes go to a file of their own beside the target, `.<name>.partial`, made afresh (O_EXCL, so never
through a link planted under that name, and O_NOFOLLOW), which then takes the target's place at once
(`os.replace`). A process killed part-way leaves the target as it was and a leftover the next write removes.
One writer a target at a time: the callers' commands take turns (a second writer would remove the first's
leftover). Used for the copy of a notebook handed in under another name (handed_in.py), the feedback pages
released into the exchange (kit/hand_in/feedback.py), the class report (kit/report/build.py) and a grading
round's outcomes (kit/grading_service).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO, Callable

CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_whole(path: str | Path, write: Callable[[BinaryIO], object], mode: int = 0o644,
                before_replace: Callable[[Path], object] | None = None) -> None:
    """Fill a fresh file beside `path` with `write(file)`, made with `mode` (so never readable by more, even
    briefly), call `before_replace(partial)` (an ACL set, say), then put it at `path`. On failure nothing is
    left but the target as it was."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    if os.path.lexists(partial):
        os.unlink(partial)  # an earlier writer's, stopped part-way
    try:
        with os.fdopen(os.open(partial, CREATE, mode), "wb") as file:
            write(file)
        if before_replace is not None:
            before_replace(partial)
        os.replace(partial, path)
    except BaseException:
        if os.path.lexists(partial):
            os.unlink(partial)
        raise


def write_bytes_whole(path: str | Path, data: bytes, mode: int = 0o644) -> None:
    write_whole(path, lambda file: file.write(data), mode)
