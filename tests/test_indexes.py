"""Does the gradebook find one student's notebook grades and comments by index, not by reading every student's
(kit/nbgrader_glue/indexes.py)?"""

from __future__ import annotations

from nbgrader.api import Gradebook, SubmittedAssignment, SubmittedNotebook

from kit.nbgrader_glue.engines import shared_engines
from tests.test_gradebook_engines import gradebook_url  # noqa: F401 - the fixture


def _plan(gb: Gradebook, query) -> str:
    statement = query.statement.compile(gb.engine, compile_kwargs={"literal_binds": True})
    return " | ".join(row[-1] for row in gb.db.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}"))


def test_are_a_notebooks_score_and_a_submissions_late_penalty_read_by_index(gradebook_url):  # noqa: F811
    with shared_engines(), Gradebook(gradebook_url, "course") as gb:
        notebook_score = gb.db.query(SubmittedNotebook.score).filter(SubmittedNotebook.id == 1)
        penalty = gb.db.query(SubmittedAssignment.late_submission_penalty).filter(SubmittedAssignment.id == 1)
        plans = _plan(gb, notebook_score), _plan(gb, penalty)
    assert "SEARCH grade USING INDEX ix_kit_grade_notebook" in plans[0] and "SCAN grade" not in plans[0]
    assert "USING INDEX ix_kit_submitted_notebook_assignment" in plans[1]


def test_does_a_second_run_find_the_indexes_there_and_add_none(gradebook_url):  # noqa: F811
    for _ in range(2):
        with shared_engines(), Gradebook(gradebook_url, "course") as gb:
            names = {row[0] for row in gb.db.connection().exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_kit_%'")}
    assert names == {"ix_kit_grade_notebook", "ix_kit_comment_notebook", "ix_kit_submitted_notebook_assignment"}
