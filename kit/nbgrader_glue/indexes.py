"""The gradebook's indexes nbgrader lacks: a notebook's grades and comments found without reading every student's.

nbgrader's schema indexes a grade and a comment by (cell, notebook) only, and
a submitted notebook by (notebook, submission). Every query that asks for one
submitted notebook's grades or comments (nbgrader's score of a notebook, a
column of SubmittedNotebook; the kit's notebook_rows, save_scores.py) or for
one submission's notebooks (SubmittedAssignment's score, its late penalty)
then reads the whole table: every student's rows, so each student costs more
the larger the class, and a class costs the square of its size. `add_indexes`
adds an index on each of those columns where it is missing (CREATE INDEX IF
NOT EXISTS: SQLite and PostgreSQL); they hold no data of their own, change no
answer, and nbgrader's own migrations leave them be. engines.py calls it once
per process and gradebook, when it makes sure of the tables.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

INDEXES = (("ix_kit_grade_notebook", "grade", "notebook_id"),
           ("ix_kit_comment_notebook", "comment", "notebook_id"),
           ("ix_kit_submitted_notebook_assignment", "submitted_notebook", "assignment_id"))


def add_indexes(engine: Engine) -> None:
    """Create each index of INDEXES that the gradebook behind `engine` lacks (its tables exist)."""
    with engine.begin() as connection:
        for name, table, column in INDEXES:
            connection.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})"))
