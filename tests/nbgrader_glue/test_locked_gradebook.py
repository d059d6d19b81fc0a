"""Does a gradebook write wait for another writer, as long as course.toml says and no longer, on SQLite and on
PostgreSQL? (kit/nbgrader_glue/locked_gradebook.py; whole gradings with a held gradebook: tests/nbgrader_glue/test_nothing_lost.py)

Another connection holds a write that nbgrader's own Gradebook must wait for (a teaching assistant's transaction
in the formgrader stands for it: the same student's row, not yet committed); the Gradebook adds that student
meanwhile.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from sqlalchemy import create_engine, text

from kit.nbgrader_glue.locked_gradebook import wait_for_locked_gradebook

HELD_SECONDS = 2


@pytest.fixture(params=["sqlite", "postgresql"])
def gradebook_url(request, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")  # nbgrader runs alembic
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'gradebook.db'}"
    return request.getfixturevalue("postgres").new_database(f"locked_{tmp_path.name[-12:].lower()}")


def _held(url: str, seconds: float, taken: threading.Event) -> None:
    """Hold the row of student zoe for `seconds`, written in a transaction of another connection, then roll it back."""
    engine = create_engine(url)
    with engine.connect() as connection:
        connection.execute(text("INSERT INTO student (id) VALUES ('zoe')"))
        taken.set()
        time.sleep(seconds)
        connection.rollback()
    engine.dispose()


def _add_student_while_held(url: str, seconds: float) -> float:
    """Seconds nbgrader's Gradebook took to add a student while another writer held the table (raises as it does)."""
    with Gradebook(url, "course"):  # the tables, made before the lock is taken
        pass
    taken = threading.Event()
    holder = threading.Thread(target=_held, args=(url, seconds, taken))
    holder.start()
    taken.wait(30)
    start = time.monotonic()
    try:
        with Gradebook(url, "course") as gb:
            gb.add_student("zoe")
        return time.monotonic() - start
    finally:
        holder.join()


def test_a_write_waits_for_a_writer_holding_the_gradebook_within_the_limit(gradebook_url):
    wait_for_locked_gradebook(60)
    assert _add_student_while_held(gradebook_url, HELD_SECONDS) >= HELD_SECONDS * 0.9
    with Gradebook(gradebook_url, "course") as gb:
        assert [s.id for s in gb.students] == ["zoe"]


def test_a_write_past_the_limit_fails_instead_of_waiting_for_ever(gradebook_url):
    wait_for_locked_gradebook(0.5)
    try:
        with pytest.raises(Exception, match="(?i)lock"):
            _add_student_while_held(gradebook_url, HELD_SECONDS * 3)
    finally:
        wait_for_locked_gradebook(120)  # course.toml's default again, for the other tests of this process
