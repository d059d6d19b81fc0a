"""Gradebook rows read once and kept while one student, or one whole run, is converted.

nbgrader converts a student's notebooks one after another, and its steps read
the gradebook notebook by notebook: the student's rows, and the released
notebook's cells, the same for every student. While a scope is open, a read
in it is made by the first notebook that asks and kept for the others:

- `one_read_per_student()` (one student's conversion: autograde.py,
  feedback.py): `per_student` reads the rows of every notebook of the student;
- `one_read_per_run()` (one command's conversion of the class, and each
  worker forked during it: autograde.py): `per_run` reads what no student
  changes (the released cells, overwrite_cells.py).

Closed, each notebook reads its own, and nothing is kept from one run (or one
student) to the next.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

Read = TypeVar("Read")

STUDENT, RUN = "student", "run"
_kept: dict[str, dict[tuple, object] | None] = {STUDENT: None, RUN: None}  # scope → key → what was read, while open


@contextmanager
def _kept_while_open(scope: str) -> Iterator[None]:
    outer, _kept[scope] = _kept[scope], {}
    try:
        yield
    finally:
        _kept[scope] = outer


def one_read_per_student():
    """While open, each `per_student` read is made once and kept; on leaving, forgotten."""
    return _kept_while_open(STUDENT)


def one_read_per_run():
    """While open, each `per_run` read is made once and kept; on leaving, forgotten."""
    return _kept_while_open(RUN)


def per_student(what: str, info: dict, read: Callable[[str | None], Read]) -> Read:
    """`read(None)` (`what` of every notebook of the student), kept while `one_read_per_student()` is open;
    `read(notebook)` (that notebook's alone) when it is closed. `info`: the notebook's resources["nbgrader"]
    (its gradebook, assignment, student and notebook)."""
    if _kept[STUDENT] is None:
        return read(info["notebook"])
    return _kept_or_read(STUDENT, (what, info["db_url"], info["assignment"], info["student"]), lambda: read(None))


def per_run(key: tuple, read: Callable[[], Read]) -> Read:
    """`read()`, kept under `key` while `one_read_per_run()` is open; read anew when it is closed."""
    if _kept[RUN] is None:
        return read()
    return _kept_or_read(RUN, key, read)


def _kept_or_read(scope: str, key: tuple, read: Callable[[], Read]) -> Read:
    kept = _kept[scope]
    if key not in kept:
        kept[key] = read()
    return kept[key]
