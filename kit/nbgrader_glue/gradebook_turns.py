"""nbgrader's steps that write grades, taking turns on a SQLite gradebook.

SQLite takes one writer at a time, so where several worker processes autograde
at once (autograde.py) the steps that write (registering the student and the
submission, the scores (save_scores.py), AssignLatePenalties) hold a file lock
beside the database while they write; on a database server they run at once.
"""

from __future__ import annotations

import fcntl
from contextlib import contextmanager

from nbgrader.preprocessors import AssignLatePenalties
from sqlalchemy.engine import make_url


@contextmanager
def gradebook_writes(db_url: str):
    """Hold the gradebook's writer lock while the block writes (SQLite only: a server takes writers at once)."""
    url = make_url(db_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        yield
        return
    with open(f"{url.database}.writer", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the block ends, or when the process dies
        yield


class AssignLatePenaltiesInTurn(AssignLatePenalties):
    """nbgrader's AssignLatePenalties, one writer at a time on SQLite."""

    def preprocess(self, nb, resources):
        with gradebook_writes(resources["nbgrader"]["db_url"]):
            return super().preprocess(nb, resources)
