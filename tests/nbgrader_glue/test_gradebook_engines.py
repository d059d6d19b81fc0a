"""One gradebook engine per process for a whole autograde run (kit/nbgrader_glue/engines.py):
do nbgrader's Gradebooks share it, see each other's commits, and does a forked worker keep off its parent's?
Are the tables and the course made sure of once per process?"""

from __future__ import annotations

import multiprocessing
import os

import pytest
from nbgrader.api import Course, Gradebook

from kit.nbgrader_glue import engines as gradebook_engines
from kit.nbgrader_glue.engines import BorrowedEngine, shared_engines
from kit.nbgrader_cli import environment
from tests.shared.gradebooks import statements_counted


@pytest.fixture
def gradebook_url(tmp_path, monkeypatch):
    """A new SQLite gradebook (nbgrader's first open runs `alembic`: this Python's tools on PATH)."""
    monkeypatch.setenv("PATH", environment()["PATH"])
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, "course"):
        pass
    return url


def _engine_and_connection(url: str) -> tuple[int, int]:
    """(id of the shared engine, id of the DB-API connection) a Gradebook opened here uses."""
    with Gradebook(url, "course") as gb:
        connection = gb.db.connection().connection.dbapi_connection
        return id(gb.engine._proxied), id(connection)


def _in_forked_child(url: str, queue) -> None:
    """Reports (this process's engine, how many pooled connections each engine it inherited holds)."""
    inherited = {key: engine for key, engine in gradebook_engines._engines.items() if key[0] != os.getpid()}
    with Gradebook(url, "course") as gb:
        gb.add_student("from_the_child")
        queue.put((id(gb.engine._proxied), [engine.pool.checkedin() for engine in inherited.values()]))


def test_gradebooks_opened_in_a_run_share_one_engine_and_see_each_others_commits(gradebook_url):
    with shared_engines():
        first = _engine_and_connection(gradebook_url)
        with Gradebook(gradebook_url, "course") as gb:
            assert isinstance(gb.engine, BorrowedEngine)
            gb.add_student("ann")
        assert _engine_and_connection(gradebook_url) == first  # the same engine, its connection pooled
    with Gradebook(gradebook_url, "course") as gb:  # after the run: nbgrader's own engine again
        assert not isinstance(gb.engine, BorrowedEngine)
        assert [s.id for s in gb.students] == ["ann"]


def test_a_forked_worker_never_uses_its_parents_engine_or_connections(gradebook_url):
    with shared_engines():
        parent_engine, _ = _engine_and_connection(gradebook_url)  # its connection pooled, before the fork
        fork = multiprocessing.get_context("fork")
        queue = fork.Queue()
        child = fork.Process(target=_in_forked_child, args=(gradebook_url, queue))
        child.start()
        child_engine, pooled_in_inherited = queue.get(timeout=60)
        child.join(60)
        assert child.exitcode == 0
        assert child_engine != parent_engine  # the parent's engine is alive in the child: ids cannot collide
        assert pooled_in_inherited == [0]  # the parent's pooled connection was closed before the fork
        with Gradebook(gradebook_url, "course") as gb:  # the parent's gradebook still works, and sees the child's
            assert [s.id for s in gb.students] == ["from_the_child"]


def test_does_a_second_gradebook_open_in_a_run_skip_the_table_and_course_checks(gradebook_url):
    with shared_engines():
        with Gradebook(gradebook_url, "course"):
            pass
        with statements_counted() as count:
            with Gradebook(gradebook_url, "course") as gb:
                assert gb.check_course("course").id == "course"  # the course, known: no query
        assert count[0] == 0
        with Gradebook(gradebook_url, "another_course") as gb:  # a course not seen yet is made as nbgrader makes it
            assert gb.check_course("another_course") is not None
    with Gradebook(gradebook_url, "course") as gb:
        assert {c.id for c in gb.db.query(Course)} == {"course", "another_course"}
