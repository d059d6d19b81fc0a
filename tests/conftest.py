"""What many test files need and is slow to make, made once per test run, and the
gradebooks a test runs on (the suite's own PostgreSQL server).

With pytest-xdist each worker has its own session, so a session fixture alone
would be made once per worker: `made_once` keeps one copy in the folder the
workers share, behind a file lock; the first worker to ask makes it, the
others wait for it and read it.

How `make test` shares the work between its two workers (`--dist loadgroup
--no-loadscope-reorder`, with the scheduler below): a test file is one unit of
work, unless `SPLIT` gives some of its tests a unit of their own (a slow file
split in two, as the main command's loop on SQLite and on PostgreSQL). A unit
runs on one worker, so its module fixtures are made once. Units are handed out
slowest first (`SLOWEST_FIRST`), so the long ones start at once, on both
workers, and the short ones fill in behind them; xdist's default order (most
tests first) left a one-test file of four minutes to the end. (xdist's own
`xdist_group` marks do not group under pytest 9: xdist renames a node's id
through an attribute pytest 9 no longer reads.)
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from filelock import FileLock
from xdist.scheduler import LoadScopeScheduling

from kit.course import DB_URL_VARIABLE, db_url
from tests.shared.course_copy import (EXAMPLE, autograde, class_course, copy_course, gradebook_snapshot, run_demo,
                                      run_nbgrader)
from tests.shared import one_parse_at_a_time  # noqa: F401  (the suite grades in threads: see the module)
from tests.shared import postgres as postgres_server
from tests.shared.axe import AUDIT_RECORDS, TAGS as AXE_TAGS, VERSION as AXE_VERSION
from tests.shared.gradebooks import dump

# Each test chooses its gradebook itself: an instructor's own KIT_DB_URL must not leak into the suite.
os.environ.pop(DB_URL_VARIABLE, None)

# Tests given a unit of their own (a regular expression on the test's id → the unit's name): each runs on
# the other worker while the rest of its file runs.
SPLIT = [
    (r"^tests/confinement/test_adversarial\.py::test_the_whole_suite_passes_as_an_ordinary_account",
     "adversarial as an account"),
    (r"^tests/nbgrader_glue/test_main_command\.py::(test_postgresql_gives.*|.*\[postgresql\])$",
     "main command on PostgreSQL"),
    (r"^tests/nbgrader_glue/test_nbgrader\.py::.*\[in-kernel", "nbgrader's stock path"),
    (r"^tests/nbgrader_glue/test_two_graders\.py::.*\[postgresql\]$", "two graders on PostgreSQL"),
    (r"^tests/browser/test_accessibility\.py::(test_does_every_feedback_page|test_can_every_scrolling_code_box|"
     r"test_a_feedback_page_at_320|test_does_every_check_message)", "accessibility audit of the feedback"),
]
# Units from the slowest, as measured by `--durations` (fresh clones, 30 Nov and 1 Dec 2026; the accessibility audit at
# three sizes, 4 Dec 2026, on a loaded machine); the rest follow in file
# order. Only the order changes with this list: a unit missing from it still runs. The main command's SQLite loop
# comes first: its PostgreSQL twin, later, compares with it. A unit of one test takes the next unit along to its
# worker (xdist queues ahead).
SLOWEST_FIRST = ["tests/nbgrader_glue/test_main_command.py", "accessibility audit of the feedback",
                 "tests/report/test_report.py", "tests/browser/test_accessibility.py", "tests/nbgrader_glue/test_cluster.py",
                 "main command on PostgreSQL", "nbgrader's stock path", "tests/confinement/test_adversarial.py",
                 "adversarial as an account", "tests/house/test_readme.py", "tests/hand_in/test_hub.py",
                 "tests/hand_in/test_grading_service.py", "tests/notebooks/test_self_learner.py",
                 "tests/nbgrader_glue/test_parallel.py", "tests/nbgrader_glue/test_nothing_lost.py",
                 "tests/nbgrader_glue/test_export.py", "tests/nbgrader_glue/test_nbgrader.py",
                 "tests/nbgrader_glue/test_two_graders.py", "tests/nbgrader_glue/test_gradebook_check.py",
                 "tests/confinement/test_refusal.py", "tests/hand_in/test_hand_in.py", "two graders on PostgreSQL",
                 "tests/notebooks/test_release.py", "tests/notebooks/test_model_heads.py", "tests/browser/test_browser.py"]


def unit_of(nodeid: str) -> str:
    """The unit of work of the test `nodeid`: its SPLIT unit, or its file."""
    nodeid = nodeid.split("@", 1)[0]  # an older pytest keeps xdist's "@group" suffix
    return next((unit for pattern, unit in SPLIT if re.search(pattern, nodeid)), nodeid.split("::", 1)[0])


class UnitsSlowestFirst(LoadScopeScheduling):
    """xdist's scope scheduler, its scopes being `unit_of`'s units."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_sessionstart(session) -> None:
    if not hasattr(session.config, "workerinput") and getattr(session.config, "cache", None) is not None:
        shutil.rmtree(session.config.cache.mkdir(AUDIT_RECORDS))  # a count from an earlier run is never shown


def pytest_terminal_summary(terminalreporter, config) -> None:
    """The accessibility audit's count of pages and rules, from what each worker recorded
    (tests/browser/test_accessibility.py), when it ran."""
    if hasattr(config, "workerinput") or getattr(config, "cache", None) is None:
        return
    pages = {page: rules for record in sorted(config.cache.mkdir(AUDIT_RECORDS).glob("*.json"))
             for page, rules in json.loads(record.read_text()).items()}
    if pages:
        terminalreporter.write_line(f"accessibility audit (axe-core {AXE_VERSION}, {', '.join(AXE_TAGS)}): "
                                    f"{len(pages)} page audits, {len(set().union(*pages.values()))} rules")


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadgroup":
        return UnitsSlowestFirst(config, log)
    return None


def pytest_collection_modifyitems(config, items: list[pytest.Item]) -> None:
    """The slowest units first (see above): xdist hands units out in this order."""
    rank = {unit: i for i, unit in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(unit_of(item.nodeid), len(rank)))  # stable: file order within a rank


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


class GradedClass(NamedTuple):
    course: Path
    first: str          # what the first `make demo` printed
    second: str         # ... and the second, run straight after
    first_db: str       # the gradebook after the first run (repr of tests.shared.gradebooks.dump)


def _graded_class(folder: Path) -> None:
    course = copy_course(folder / "course")
    (folder / "first.txt").write_text(run_demo(course))
    first_db = dump(db_url(course))
    (folder / "second.txt").write_text(run_demo(course))
    (folder / "first_db.txt").write_text(repr(first_db))


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory) -> GradedClass:
    """The example class through the main command's whole loop, run twice in one copy
    of the course, once per test run. Read it; never grade in it."""
    folder = made_once(tmp_path_factory, "graded_class", _graded_class)
    return GradedClass(folder / "course", (folder / "first.txt").read_text(), (folder / "second.txt").read_text(),
                       (folder / "first_db.txt").read_text())


def _hostile_class(released: Path) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        from kit.classroom import grade_written_answers
        from kit.course import ASSIGNMENT
        from kit.nbgrader_cli import run as nbgrader
        from kit.report.build import course_directory, write_report
        from tests.shared.hostile_student import STUDENT, write_submission

        course = folder / "course"
        shutil.copytree(released, course, symlinks=True)
        shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / "ada" / ASSIGNMENT)
        handed_in = write_submission(course / "submitted" / STUDENT / ASSIGNMENT)
        (handed_in / "timestamp.txt").write_text((EXAMPLE / "ada" / ASSIGNMENT / "timestamp.txt").read_text())
        for command in [("db", "student", "add", "ada"), ("db", "student", "add", STUDENT),
                        ("autograde", ASSIGNMENT, "--force")]:
            nbgrader(*command, "--log-level=ERROR", cwd=course, check=True, capture_output=True)
        grade_written_answers(["ada", STUDENT], course)  # the stand-in teaching assistant's points and comments
        nbgrader("generate_feedback", ASSIGNMENT, "--force", "--log-level=ERROR", cwd=course, check=True,
                 capture_output=True)
        for anonymous in (False, True):
            write_report(course_directory(course), ASSIGNMENT, anonymous)
    return make


@pytest.fixture(scope="session")
def hostile_class(tmp_path_factory, released_course) -> Path:
    """A course of two students, autograded, graded by hand (the stand-in assistant), with feedback and the class
    report: ada of the example class and tests/shared/hostile_student.py's, whose every answer is written to act in a
    page. Once per test run; read it, never grade in it."""
    return made_once(tmp_path_factory, "hostile_class", _hostile_class(released_course)) / "course"


@pytest.fixture(scope="session")
def empty_gradebook(tmp_path_factory) -> Path:
    """An empty SQLite gradebook file to copy (nbgrader's first open runs `alembic`, this Python's tools on PATH:
    once)."""
    from nbgrader.api import Gradebook

    from kit.course import COURSE_ID
    from kit.nbgrader_cli import environment

    path = tmp_path_factory.mktemp("empty") / "gradebook.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", environment()["PATH"])
        Gradebook(f"sqlite:///{path}", COURSE_ID).close()
    return path


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server per test process (initdb + pg_ctl in a temporary folder)."""
    reason = postgres_server.why_unavailable()
    if reason:
        pytest.skip(f"no PostgreSQL server for the tests: {reason}")
    with postgres_server.running_server() as server:
        yield server


def _graded_one_at_a_time(released: Path) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        students = class_course(folder, len(list(EXAMPLE.iterdir())), released)
        result = autograde(folder, KIT_GRADING_WORKERS="1")
        assert result.returncode == 0, result.stderr[-12000:]
        (folder / "snapshot.txt").write_text(repr((students, gradebook_snapshot(folder, students))))
    return make


@pytest.fixture(scope="session")
def graded_one_at_a_time(tmp_path_factory, released_course) -> tuple[list[str], dict]:
    """The example class (one student of each kind) autograded by nbgrader's own serial loop, once
    per test run: (student ids, gradebook snapshot)."""
    folder = made_once(tmp_path_factory, "graded_one_at_a_time", _graded_one_at_a_time(released_course))
    return ast.literal_eval((folder / "snapshot.txt").read_text())
