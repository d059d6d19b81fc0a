"""A SQLite gradebook in write-ahead-log mode, for many writes from several processes.

nbgrader commits every cell's grade on its own. In SQLite's default
rollback-journal mode each commit waits for the disk (fsync): 10 to 40 ms on
a shared machine, which made the gradebook, not grading, the slowest part of
autograding several students at once. In WAL mode with synchronous=NORMAL a
commit is a write to the log (under a millisecond), and readers (the
formgrader, a second grader) no longer wait for writers.

What it costs: a grade committed just before a power cut (not a crash of
nbgrader: the log survives that) may be lost, the gradebook staying
consistent; a regrade restores it. WAL needs a local disk (not NFS): on a
shared filesystem use a database server (PostgreSQL).
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import event
from sqlalchemy.engine import Engine

_installed = False


def _on_connect(connection, _record) -> None:
    if isinstance(connection, sqlite3.Connection):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def use_write_ahead_log() -> None:
    """Every SQLite database this process opens through SQLAlchemy (nbgrader's gradebook) uses WAL."""
    global _installed
    if not _installed:
        event.listen(Engine, "connect", _on_connect)
        _installed = True
