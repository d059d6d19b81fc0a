"""The time a hand-in's timestamp.txt gives, read as nbgrader reads it, or why it cannot be read.

nbgrader's own reading (CourseDirectory.get_existing_timestamp) of a file it cannot parse calls a `fail`
the class does not have: the instructor gets an AttributeError's traceback that never names the file or
what it holds. A file nbgrader's submit or the kit's collect wrote always reads; one written or edited by
hand, or copied from elsewhere, may not.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from nbgrader.utils import parse_utc

FILE = "timestamp.txt"
LONGEST = 4096  # bytes read at most: a time nbgrader writes is 33; a longer file is not a time


class UnreadableTimestamp(ValueError):
    """timestamp.txt is there and gives no time."""


def handed_in_at(folder: Path | str) -> datetime.datetime | None:
    """The time `folder`'s timestamp.txt gives (naive UTC, as nbgrader keeps it); None where there is no such
    file or it is empty (nbgrader's own reading). Raises UnreadableTimestamp saying what it holds instead."""
    path = Path(folder) / FILE
    if not path.exists() and not path.is_symlink():
        return None
    try:
        with open(path, "rb") as file:
            raw = file.read(LONGEST + 1)
        text = raw.decode("utf-8").strip()
        if not text:
            return None
        if len(raw) > LONGEST:
            raise ValueError(text)
        return parse_utc(text)
    except IsADirectoryError:
        raise UnreadableTimestamp(f"{path} is a folder, not the file of the hand-in's time") from None
    except OSError as e:
        raise UnreadableTimestamp(f"{path} cannot be read ({e.strerror or e})") from None
    except (ValueError, OverflowError):
        shown = raw[:60].decode("utf-8", "replace").strip()
        more = "…" if len(raw) > 60 else ""
        raise UnreadableTimestamp(f"{path} holds {shown + more!r}, which is not a time (nbgrader writes one "
                                  "as 2026-12-14 12:00:00.000000 UTC)") from None


def timestamp_problem(folder: Path | str) -> str | None:
    """Why nbgrader cannot read `folder`'s timestamp.txt, with what to do; None if it can (or there is none)."""
    try:
        handed_in_at(folder)
    except UnreadableTimestamp as e:
        return (f"{e}: write the time of the hand-in there, or delete the file to grade the work as handed in "
                "on time")
    return None
