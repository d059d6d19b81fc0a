"""Does the gradebook find one student's notebook grades and comments by index, not by reading every student's
(kit/nbgrader_glue/indexes.py)?"""

from __future__ import annotations

import threading

import pytest
from nbgrader.api import Gradebook, SubmittedAssignment, SubmittedNotebook
from sqlalchemy import create_engine

from kit.nbgrader_cli import environment
from kit.nbgrader_glue.engines import shared_engines
from kit.nbgrader_glue.indexes import add_indexes
from tests.nbgrader_glue.databases import DATABASES
from tests.nbgrader_glue.test_gradebook_engines import gradebook_url  # noqa: F401 - the fixture

RACE_ROUNDS = 5  # fresh gradebooks, each met by
STARTING_TOGETHER = 6  # workers starting at once


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


@pytest.mark.parametrize("database", DATABASES)
def test_does_a_worker_starting_beside_a_writer_wait_for_it_where_the_indexes_exist(database, request, tmp_path,
                                                                                   monkeypatch):
    # Every worker process of a run makes sure of the indexes as it starts, while other workers write grades. Where
    # they exist it must lock nothing: creating them again locked each table in turn, and on PostgreSQL a worker
    # inserting a student's comments and one creating the indexes each waited for the other (deadlock detected).
    monkeypatch.setenv("PATH", environment()["PATH"])
    url = (request.getfixturevalue("postgres").new_database("indexes_beside_a_writer") if database == "postgresql"
           else f"sqlite:///{tmp_path / 'gradebook.db'}")
    with shared_engines(), Gradebook(url, "course"):
        pass  # the tables and the indexes made
    writer = create_engine(url).connect()
    if database == "postgresql":
        writer.exec_driver_sql("LOCK TABLE comment IN ROW EXCLUSIVE MODE")  # what an insert of comments holds
    else:
        writer.exec_driver_sql("BEGIN IMMEDIATE")  # a writer's transaction: SQLite's write lock
    outcome = []
    starting = threading.Thread(target=lambda: outcome.append(_added_or_error(create_engine(url))))
    try:
        starting.start()
        starting.join(timeout=60)  # what it does takes milliseconds; waiting for the writer never ends
        waited = starting.is_alive()
    finally:
        writer.rollback()
        writer.close()
        starting.join()
    assert not waited and outcome == [None]


@pytest.mark.parametrize("database", DATABASES)
def test_do_workers_starting_together_on_a_new_gradebook_all_make_sure_of_its_indexes(database, request, tmp_path,
                                                                                     monkeypatch):
    # The first run on a gradebook has no indexes yet, and its workers all start at once. On PostgreSQL two
    # `CREATE INDEX IF NOT EXISTS` of one name at once do not both see the other: the second failed with a duplicate
    # key in pg_class, and nbgrader failed that worker's student.
    monkeypatch.setenv("PATH", environment()["PATH"])
    for round_ in range(RACE_ROUNDS):
        url = (request.getfixturevalue("postgres").new_database(f"indexes_raced_{round_}")
               if database == "postgresql" else f"sqlite:///{tmp_path / f'gradebook{round_}.db'}")
        Gradebook(url, "course").close()  # nbgrader's tables, none of the kit's indexes
        start = threading.Barrier(STARTING_TOGETHER)
        outcomes: list[str | None] = []

        def start_worker() -> None:
            engine = create_engine(url)
            start.wait()
            outcomes.append(_added_or_error(engine))

        workers = [threading.Thread(target=start_worker) for _ in range(STARTING_TOGETHER)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert outcomes == [None] * STARTING_TOGETHER, (round_, outcomes)


def _added_or_error(engine) -> str | None:
    try:
        add_indexes(engine)
    except Exception as e:  # SQLite gives up on a lock after its busy timeout
        return f"{type(e).__name__}: {e}"
    finally:
        engine.dispose()
    return None
