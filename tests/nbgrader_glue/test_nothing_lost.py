"""Grading that is killed part-way, started twice at once, or kept waiting by a locked gradebook loses nothing.

Each command is killed with SIGKILL at a point its own log names, then run again as README's loop runs it
(`nbgrader autograde attention`, no --force): every grade, page and released page equals an uninterrupted
run's. The killed command writes its log into a pipe the test reads line by line, a pipe of one page: once
the test stops reading, the command can write only a few lines more before it waits, so the kill lands where
the test says, however loaded the machine. release_feedback's lines are too short for that: it is
killed from within, as it begins a page.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.nbgrader_glue.whole_or_absent import unfinished_mark
from kit.report.build import course_directory
from kit.report.collect import collect
from kit.report.summary import summary
from tests.shared.course_copy import class_course, gradebook_snapshot as snapshot

N_STUDENTS = 4  # ada, bo, cy and dee: every one of their notebooks readable
F_SETPIPE_SZ = 1031  # fcntl: a pipe's buffer size (Linux)


def command(course: Path, *args: str, log: Path | None = None, **env: str) -> subprocess.Popen:
    """An nbgrader command in its own session; its log goes to a pipe of one page, or to `log` when
    two commands go at once (a pipe nobody reads fills, and its writer then waits for ever)."""
    with log.open("w") if log else nullcontext(subprocess.PIPE) as stderr:
        process = subprocess.Popen(nbgrader_cli.command(*args), cwd=course, stdout=subprocess.DEVNULL,
                                   stderr=stderr, text=True, start_new_session=True,
                                   env=nbgrader_cli.environment(**env))
    if not log:
        fcntl.fcntl(process.stderr, F_SETPIPE_SZ, 4096)
    return process


def autograde(course: Path, *args: str, **kwargs) -> subprocess.Popen:
    return command(course, "autograde", ASSIGNMENT, *args, **kwargs)


def finish(process: subprocess.Popen, log: Path | None = None) -> tuple[int, str]:
    _, piped = process.communicate(timeout=1800)
    return process.returncode, log.read_text() if log else piped


def killed_at(process: subprocess.Popen, point: Callable[[str], bool]) -> str:
    """Kill `process` and all it started with SIGKILL once its log shows a line `point` accepts; its log."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if point(line):
            break
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return "".join(seen)


def rerun(course: Path, *args: str) -> str:
    """The command again, as README runs it: it must succeed; its log."""
    code, log = finish(command(course, *args))
    assert code == 0, log[-3000:]
    return log


def whole(course: Path, step: str, students: list[str], suffix: str) -> bool:
    """Every student's folder of `step` holds every submitted notebook's output, and no unfinished mark."""
    return all((course / step / s / ASSIGNMENT / f"{notebook.stem}{suffix}").exists()
               and not unfinished_mark(course / step / s / ASSIGNMENT).exists()
               for s in students for notebook in (course / "submitted" / s / ASSIGNMENT).glob("*.ipynb"))


def pages(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.html"))}


pytestmark = pytest.mark.xdist_group("nothing_lost")  # one unit of work (tests/conftest.py)


@pytest.fixture(scope="module")
def uninterrupted(graded_one_at_a_time):
    """The gradebook of the first N_STUDENTS graded in one uninterrupted run (the session's serial one:
    a student's grades do not depend on who else is in the class)."""
    students, graded = graded_one_at_a_time
    return {key: value for key, value in graded.items() if key[0] in students[:N_STUDENTS]}


KILL_POINTS = {  # where autograde is killed: (its workers, the line of its log it is killed at)
    "as the first student starts": ("2", lambda line, students: "Creating/updating student" in line),
    "after some students": ("1", lambda line, students: f"Creating/updating student with ID '{students[2]}'" in line),
    "in the middle of a student's notebooks": (
        "2", lambda line, students: "Autograding" in line and f"/{students[1]}/" in line and "05_" in line),
}


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_run_killed_part_way_is_finished_by_the_next_plain_run(point, uninterrupted, tmp_path, released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    workers, at = KILL_POINTS[point]
    killed_at(autograde(tmp_path, KIT_GRADING_WORKERS=workers), lambda line: at(line, students))
    assert not whole(tmp_path, "autograded", students, ".ipynb")  # the kill left work undone
    unfinished = {s for s in students if unfinished_mark(tmp_path / "autograded" / s / ASSIGNMENT).exists()}
    told = collect(course_directory(tmp_path), ASSIGNMENT)  # the class report, meanwhile, says whose scores are partial
    partial = {s.id for s in told.students if s.unfinished}
    assert partial == unfinished - set(told.awaiting) and (not partial or "Grading unfinished" in summary(told))
    assert {s.id for s in told.students} | set(told.awaiting) == set(students) and not told.not_submitted
    print(f"partial scores: {sorted(partial)}; not graded yet: {told.awaiting}")
    log = rerun(tmp_path, "autograde", ASSIGNMENT)
    for student in students:
        said = f"Finishing {student}'s {ASSIGNMENT}" in log
        skipped = f"Skipping existing assignment: {tmp_path / 'autograded' / student / ASSIGNMENT}" in log
        assert said == (student in unfinished) and not (skipped and student in unfinished), log[-3000:]
    assert whole(tmp_path, "autograded", students, ".ipynb")
    assert snapshot(tmp_path, students) == uninterrupted
    told = collect(course_directory(tmp_path), ASSIGNMENT)
    assert not told.awaiting and not any(s.unfinished for s in told.students) and len(told.students) == len(students)


def test_two_runs_started_at_once_take_turns_and_agree(uninterrupted, tmp_path, released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    logs = tmp_path / "first.log", tmp_path / "second.log"
    first = autograde(tmp_path, "--force", log=logs[0])
    time.sleep(0.5)
    second = autograde(tmp_path, "--force", log=logs[1])
    (first_code, first_log), (second_code, second_log) = finish(first, logs[0]), finish(second, logs[1])
    assert first_code == 0 and second_code == 0
    assert "Another grading run" in first_log + second_log
    assert snapshot(tmp_path, students) == uninterrupted


def hold_write_lock(course: Path) -> sqlite3.Connection:
    """Take the SQLite gradebook's write lock, as another writer would (a TA's save, an sqlite3 session)."""
    holder = sqlite3.connect(course / "gradebook.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def test_a_gradebook_held_by_another_writer_is_waited_for(uninterrupted, tmp_path, released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    holder = hold_write_lock(tmp_path)
    run = autograde(tmp_path, KIT_GRADING_WORKERS="1")
    for line in run.stderr:
        if "Creating/updating student" in line:  # logged just before the student's first write
            break
    time.sleep(8)  # longer than SQLite's driver waited before (5 s); far within course.toml's wait_seconds
    holder.rollback()
    holder.close()
    code, log = finish(run)
    assert code == 0, log[-3000:]
    assert snapshot(tmp_path, students) == uninterrupted


def test_a_gradebook_held_past_the_wait_fails_one_student_and_the_rerun_grades_them(uninterrupted, tmp_path,
                                                                                    released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    (tmp_path / "course.toml").write_text((tmp_path / "course.toml").read_text()
                                          .replace("wait_seconds = 120", "wait_seconds = 1"))
    holder = hold_write_lock(tmp_path)
    run = autograde(tmp_path, KIT_GRADING_WORKERS="1")
    for line in run.stderr:
        if "database is locked" in line:
            break
    holder.rollback()
    holder.close()
    code, log = finish(run)
    assert code != 0 and f"for student '{students[0]}'" in log, log[-3000:]
    assert whole(tmp_path, "autograded", students[1:], ".ipynb")  # the others went on
    rerun(tmp_path, "autograde", ASSIGNMENT)
    assert snapshot(tmp_path, students) == uninterrupted


@pytest.fixture(scope="module")
def given_feedback(tmp_path_factory, released_course):
    """A class graded, its feedback written and released, each step uninterrupted: (course, students, the
    pages written, the pages released)."""
    course = tmp_path_factory.mktemp("feedback")
    students = class_course(course, N_STUDENTS, released_course)
    for student in students:  # as nbgrader's submit writes it, so that feedback can be released
        (course / "submitted" / student / ASSIGNMENT / "submission_secret.txt").write_text(secrets.token_hex(64))
    for step in ("release_assignment", "autograde", "generate_feedback", "release_feedback"):
        rerun(course, step, ASSIGNMENT)
    return course, students, pages(course / "feedback"), pages(course / "exchange")


def test_feedback_killed_part_way_is_finished_by_the_next_plain_run(given_feedback, tmp_path):
    graded, students, written, _ = given_feedback
    course = shutil.copytree(graded, tmp_path / "course", symlinks=True)
    shutil.rmtree(course / "feedback")
    killed_at(command(course, "generate_feedback", ASSIGNMENT, KIT_GRADING_WORKERS="1"),
              lambda line: "Writing" in line and f"/{students[1]}/" in line and "03_" in line)
    assert unfinished_mark(course / "feedback" / students[1] / ASSIGNMENT).exists()
    log = rerun(course, "generate_feedback", ASSIGNMENT)
    assert f"Finishing {students[1]}'s {ASSIGNMENT}" in log
    assert whole(course, "feedback", students, ".html")
    assert pages(course / "feedback") == written


def test_feedback_is_not_written_from_an_unfinished_autograde(given_feedback, tmp_path):
    graded, students, written, _ = given_feedback
    course = shutil.copytree(graded, tmp_path / "course", symlinks=True)
    shutil.rmtree(course / "feedback")
    unfinished_mark(course / "autograded" / students[0] / ASSIGNMENT).touch()  # as a killed autograde leaves it
    code, log = finish(command(course, "generate_feedback", ASSIGNMENT))
    assert code != 0 and f"for student '{students[0]}'" in log and "run `nbgrader autograde" in log
    assert not (course / "feedback" / students[0]).exists()
    assert whole(course, "feedback", students[1:], ".html")  # the others went on


# release_feedback, SIGKILLed with all it started as it begins its page number KILL_AT_PAGE (from 0). Its log
# lines are short: a quiet machine writes every one into the pipe before the test reads the first, so the kill
# comes from within, between two pages, wherever the scheduler is.
RELEASE_KILLED_AT_A_PAGE = """
import os, signal, sys
from kit.hand_in.feedback import OwnerOnlyReleaseFeedback
release, released = OwnerOnlyReleaseFeedback._release, []
def _release(self, *args):
    if len(released) == int(os.environ["KILL_AT_PAGE"]):
        os.killpg(0, signal.SIGKILL)
    release(self, *args)
    released.append(args)
OwnerOnlyReleaseFeedback._release = _release
from nbgrader.apps.nbgraderapp import main
main()
"""


def test_release_killed_part_way_is_finished_by_the_next_plain_run(given_feedback, tmp_path):
    graded, students, _, released = given_feedback
    course = shutil.copytree(graded, tmp_path / "course", symlinks=True)
    shutil.rmtree(course / "exchange" / COURSE_ID / "feedback")
    killed = subprocess.run([sys.executable, "-c", RELEASE_KILLED_AT_A_PAGE, "release_feedback", ASSIGNMENT],
                            cwd=course, capture_output=True, text=True, start_new_session=True, timeout=1800,
                            env=nbgrader_cli.environment(KILL_AT_PAGE=str(len(released) // 2)))
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert 0 < len(pages(course / "exchange")) < len(released)
    rerun(course, "release_feedback", ASSIGNMENT)
    assert pages(course / "exchange") == released
