"""One SQLAlchemy engine per process and gradebook for a whole `nbgrader autograde`.

nbgrader opens the gradebook (`nbgrader.api.Gradebook`) about five times per
notebook: its converter and four of its preprocessors each do
`with Gradebook(db_url, course_id)`. Every open makes a new engine (a new
connection and, for SQLite, its pragmas), checks every table
(`create_all`), and closing it disposes of the engine; worse, SQLAlchemy keeps
its compiled SQL per engine, so every query nbgrader makes was compiled again
for every open. That was about a third of nbgrader's own work per student.

`shared_engines()` makes, while it is open, every Gradebook of this process
borrow one engine per (process id, URL): its pool of connections and its
compiled SQL live for the whole run, and its tables are checked by the first
open only (`create_all` is skipped for a URL whose tables this process
already made sure of, and so is Gradebook's question whether the database
has any tables; the first adds the indexes nbgrader lacks, indexes.py), and
so is its course: Gradebook.__init__ makes sure its
course exists (`check_course`: a query and a commit), once per process, URL
and course here (then the course is given without a query). Nothing else changes: nbgrader still opens a session
per use, commits when it commits (a grade is in the database once nbgrader's
commit returns, so a run killed part-way loses nothing recorded) and removes
the session when it closes the Gradebook (the connection goes back to the
pool, its transaction rolled back: it holds no lock between uses, so SQLite
writers still take turns and a second grader on a database server still
works alongside).

Why it is safe across processes: worker_pool.py forks worker processes
from nbgrader's. An engine is keyed by the process id that made it, so a
worker never uses its parent's engine or connections; before any fork this
process's pooled connections are closed (`os.register_at_fork`), so none is
inherited, and a worker never closes what its parent made (its copy of the
parent's engines is left untouched until it exits). Each worker makes its
own engine on its first open and closes it as it exits.
"""

from __future__ import annotations

import multiprocessing.util
import os
import threading
from contextlib import contextmanager
from typing import Iterator

import sqlalchemy
from sqlalchemy import MetaData, create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.engine.base import OptionEngine
from sqlalchemy.orm import make_transient_to_detached

from kit.nbgrader_glue.indexes import add_indexes

_engines: dict[tuple[int, str, tuple], Engine] = {}  # (process id, URL, create_engine's options) → engine
_tables_checked: set[tuple[int, str]] = set()  # (process id, URL) whose tables exist (create_all done)
_courses_checked: set[tuple[int, str, str]] = set()  # (process id, URL, course id) known to exist (check_course)
_lock = threading.Lock()
_fork_hook_installed = False


class BorrowedEngine(OptionEngine):
    """A Gradebook's view of the shared engine (same pool, same compiled SQL): closing the
    Gradebook (`engine.dispose()`) returns its connection to the pool instead of closing the pool."""

    def dispose(self, close: bool = True) -> None:
        pass  # the owner, shared_engines(), disposes the engine itself


def engine_for(url: str, **options) -> BorrowedEngine:
    """This process's engine for `url` (made on first use), lent as a BorrowedEngine."""
    key = (os.getpid(), str(url), tuple(sorted(options.items())))
    with _lock:
        engine = _engines.get(key)
        if engine is None:
            engine = _engines[key] = create_engine(url, **options)
            if multiprocessing.parent_process() is not None:  # a worker: close its connections as it exits
                multiprocessing.util.Finalize(engine, engine.dispose, exitpriority=0)
    return BorrowedEngine(engine, {})


def _create_all_once(metadata: MetaData, bind, **kwargs) -> None:
    """MetaData.create_all, once per process and URL for a borrowed engine."""
    if not isinstance(bind, BorrowedEngine):
        return MetaData.create_all(metadata, bind, **kwargs)
    key = (os.getpid(), str(bind.url))
    if key not in _tables_checked:
        MetaData.create_all(metadata, bind, **kwargs)
        add_indexes(bind)
        _tables_checked.add(key)


class _HasTables:
    """What `inspect(engine)` answers Gradebook.__init__, its one caller in nbgrader.api, for a database whose
    tables this process made sure of: it asks only whether there are any."""

    @staticmethod
    def get_table_names() -> list[str]:
        return ["(made sure of by this process)"]


def _inspect_once(subject):
    """sqlalchemy.inspect, answered without a query for a borrowed engine whose tables this process made sure of."""
    if isinstance(subject, BorrowedEngine) and (os.getpid(), str(subject.url)) in _tables_checked:
        return _HasTables
    return sqlalchemy.inspect(subject)


def _check_course_once(nbgrader_check_course):
    """Gradebook.check_course; for a borrowed engine's course this process already made sure of, the course
    as its session's own, without a query (nbgrader's looks it up by a query, makes it if missing, and commits;
    Gradebook.__init__, its one caller, makes sure of it and uses nothing of it)."""

    def check_course(gradebook, course_id: str = "default_course", **kwargs):
        key = (os.getpid(), str(gradebook.engine.url), course_id)
        if not isinstance(gradebook.engine, BorrowedEngine) or kwargs or key not in _courses_checked:
            course = nbgrader_check_course(gradebook, course_id, **kwargs)
            if isinstance(gradebook.engine, BorrowedEngine):
                _courses_checked.add(key)
            return course
        from nbgrader.api import Course

        known = Course(id=course_id)  # its only column: the key
        make_transient_to_detached(known)
        return gradebook.db.merge(known, load=False)

    return check_course


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # another thread of the parent may have held it as it forked


def dispose_engines() -> None:
    """Close this process's shared engines' pooled connections (never another process's)."""
    with _lock:
        for (pid, _, _), engine in _engines.items():
            if pid == os.getpid():
                engine.dispose()


@contextmanager
def shared_engines() -> Iterator[None]:
    """While open, every nbgrader Gradebook in this process (and in processes forked from it)
    borrows the shared engine of its URL; on leaving, this process's engines are disposed."""
    global _fork_hook_installed
    import nbgrader.api as api

    if not _fork_hook_installed:
        os.register_at_fork(before=dispose_engines, after_in_child=_after_fork_in_child)
        _fork_hook_installed = True
    saved = api.create_engine, api.inspect, api.Gradebook.check_course
    api.create_engine, api.inspect = engine_for, _inspect_once
    api.Gradebook.check_course = _check_course_once(saved[2])
    api.Base.metadata.create_all = _create_all_once.__get__(api.Base.metadata)
    try:
        yield
    finally:
        api.create_engine, api.inspect, api.Gradebook.check_course = saved
        del api.Base.metadata.create_all
        dispose_engines()
        with _lock:
            for key in [k for k in _engines if k[0] == os.getpid()]:
                del _engines[key]
            _tables_checked.difference_update({k for k in _tables_checked if k[0] == os.getpid()})
            _courses_checked.difference_update({k for k in _courses_checked if k[0] == os.getpid()})
