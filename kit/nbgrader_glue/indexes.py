"""The gradebook's indexes nbgrader lacks: a notebook's grades and comments found without reading every student's.

nbgrader's schema indexes a grade and a comment by (cell, notebook) only, and
a submitted notebook by (notebook, submission). Every query that asks for one
submitted notebook's grades or comments (nbgrader's score of a notebook, a
column of SubmittedNotebook; the kit's rows_by_notebook, save_scores.py) or for
one submission's notebooks (SubmittedAssignment's score, its late penalty)
then reads the whole table: every student's rows, so each student costs more
the larger the class, and a class costs the square of its size. `add_indexes`
adds an index on each of those columns where it is missing (CREATE INDEX IF
NOT EXISTS: SQLite and PostgreSQL); they hold no data of their own, change no
answer, and nbgrader's own migrations leave them be. engines.py calls it once
per process and gradebook, when it makes sure of the tables.

Only a missing index is created, each in a transaction of its own. Creating an
index locks its table against writers until the transaction ends, and every
worker process of a run calls this as it starts, while the others write
grades: three CREATE INDEX statements in one transaction held each table's
lock while waiting for the next, and on PostgreSQL a worker inserting a
student's comments and another creating the indexes waited for each other
("deadlock detected": one of them failed its student). Asking the catalogue
which indexes exist takes no table lock, so a run on a gradebook that has them
(every run after the first) locks nothing here.

On PostgreSQL, IF NOT EXISTS is not enough when the workers of a first run
start together: two CREATE INDEX of one name at once each miss the other's
uncommitted index, and the second fails on a duplicate key in the catalogue
(nbgrader then failed that worker's student). So each creation first takes a
transaction-scoped advisory lock: the processes creating indexes take turns,
and each one's IF NOT EXISTS sees what the one before committed. SQLite's
writers take turns already.
"""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

ADVISORY_LOCK = 0x6B69745F69647820  # "kit_idx ": PostgreSQL's advisory lock for creating INDEXES
INDEXES = (("ix_kit_grade_notebook", "grade", "notebook_id"),
           ("ix_kit_comment_notebook", "comment", "notebook_id"),
           ("ix_kit_submitted_notebook_assignment", "submitted_notebook", "assignment_id"))


def add_indexes(engine: Engine) -> None:
    """Create each index of INDEXES that the gradebook behind `engine` lacks (its tables exist)."""
    catalogue = inspect(engine)
    for name, table, column in INDEXES:
        if name not in {index["name"] for index in catalogue.get_indexes(table)}:
            with engine.begin() as connection:  # IF NOT EXISTS: another process may have made it since
                if connection.dialect.name == "postgresql":  # wait for one making it now to commit
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})
                connection.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})"))
