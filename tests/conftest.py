"""What many test files need and is slow to make, made once per test run.

With pytest-xdist each worker has its own session, so a session fixture alone
would be made once per worker: `made_once` keeps one copy in the folder the
workers share, behind a file lock; the first worker to ask makes it, the
others wait for it and read it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from filelock import FileLock

from kit.course_copy import copy_course, run_nbgrader


def made_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """Folder `name`, made by make(folder) once per test run, whatever the number of workers."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the workers' temporary folders are its children
    folder, done = shared / name, shared / f"{name}.done"
    with FileLock(str(shared / f"{name}.lock")):
        if not done.exists():
            if folder.exists():  # a worker that failed to make it left this
                shutil.rmtree(folder)
            make(folder)
            done.touch()
    return folder


def _release(course: Path) -> None:
    copy_course(course)
    run_nbgrader(course, "generate_assignment", "attention", "--force", "--log-level=ERROR")


@pytest.fixture(scope="session")
def released_course(tmp_path_factory) -> Path:
    """A copy of the course with the release generated and recorded in its gradebook.
    Read-only: copy it (`copy_released`) before grading in it."""
    return made_once(tmp_path_factory, "released_course", _release)


@pytest.fixture(scope="session")
def copy_released(released_course) -> Callable[[Path], Path]:
    """copy_released(target): a course of your own, its release already generated."""
    def copy(target: Path) -> Path:
        shutil.copytree(released_course, target, dirs_exist_ok=True, symlinks=True)
        return target
    return copy


def run_demo(course: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "kit.demo"], cwd=course, capture_output=True, text=True,
                            timeout=1800)  # a generous bound: a loaded machine is slow
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def dump(db: Path) -> list:
    """Every row of every table of an SQLite database, in a stable order."""
    with sqlite3.connect(db) as con:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return [(t, sorted(map(repr, con.execute(f"SELECT * FROM '{t}'")))) for t in tables]


class GradedClass(NamedTuple):
    course: Path
    first: str          # what the first `make demo` printed
    second: str         # ... and the second, run straight after
    first_db: list      # the gradebook after the first run (dump)


def _graded_class(folder: Path) -> None:
    course = copy_course(folder / "course")
    (folder / "first.txt").write_text(run_demo(course))
    first_db = dump(course / "gradebook.db")
    (folder / "second.txt").write_text(run_demo(course))
    (folder / "first_db.txt").write_text(repr(first_db))


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory) -> GradedClass:
    """The example class through the main command's whole loop, run twice in one copy
    of the course, once per test run. Read it; never grade in it."""
    folder = made_once(tmp_path_factory, "graded_class", _graded_class)
    return GradedClass(folder / "course", (folder / "first.txt").read_text(), (folder / "second.txt").read_text(),
                       (folder / "first_db.txt").read_text())
