"""Gradebook rows read once for all of a student's notebooks, while that student is converted.

nbgrader converts a student's notebooks one after another, and its steps read
the gradebook notebook by notebook. While `one_read_per_student()` is open
(one student's conversion: autograde.py, feedback.py), `per_student` reads
the rows every notebook of the student needs on the first notebook that asks
and keeps them for the others; closed, each notebook reads its own, and
nothing is kept from one run (or one student) to the next.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

Read = TypeVar("Read")

_kept: dict[tuple, object] | None = None  # what was read, under the key its reader gave, while open


@contextmanager
def one_read_per_student() -> Iterator[None]:
    """While open, each `per_student` read is made once and kept; on leaving, forgotten."""
    global _kept
    outer, _kept = _kept, {}
    try:
        yield
    finally:
        _kept = outer


def per_student(key: tuple, read: Callable[[str | None], Read], notebook: str) -> Read:
    """`read(None)` (the rows of every notebook of the student), kept under `key` while `one_read_per_student()`
    is open; `read(notebook)` (that notebook's alone) when it is closed. `key` names the student and the rows."""
    if _kept is None:
        return read(notebook)
    if key not in _kept:
        _kept[key] = read(None)
    return _kept[key]
