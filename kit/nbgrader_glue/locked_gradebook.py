"""How long a command waits for a gradebook another writer holds, before the write fails.

Another writer (a teaching assistant saving a grade in the formgrader, a second
grading run, an administrator's `sqlite3` session) can hold the gradebook for a
while. SQLite's driver gave up after 5 s ("database is locked") and PostgreSQL
waits for ever; either way a student graded meanwhile lost their grading.
`wait_for_locked_gradebook(seconds)` makes every connection this process opens
through SQLAlchemy (nbgrader's Gradebook among them) wait up to course.toml's
`[gradebook] wait_seconds` for a lock: SQLite's busy timeout, PostgreSQL's
lock_timeout. Past it, that student's grading fails with the driver's error,
the others go on, and the next plain run grades the student again
(whole_or_absent.py).
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import event
from sqlalchemy.engine import Engine

_wait_ms = 0  # 0: not installed


def _on_connect(connection, _record) -> None:
    if isinstance(connection, sqlite3.Connection):
        connection.execute(f"PRAGMA busy_timeout = {_wait_ms}")
    elif type(connection).__module__.startswith("psycopg"):
        autocommit, connection.autocommit = connection.autocommit, True  # a SET that no rollback undoes
        connection.execute(f"SET lock_timeout = {_wait_ms}")
        connection.autocommit = autocommit


def wait_for_locked_gradebook(seconds: float) -> None:
    """Every gradebook connection this process opens waits up to `seconds` for a lock another writer holds."""
    global _wait_ms
    if not _wait_ms:
        event.listen(Engine, "connect", _on_connect)
    _wait_ms = max(1, round(seconds * 1000))
