"""Grading that is killed part-way, or started twice at once, loses nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from contextlib import nullcontext
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT
from tests.course_copy import class_course, gradebook_snapshot as snapshot

N_STUDENTS = 4


def autograde(course: Path, log: Path | None = None) -> subprocess.Popen:
    """nbgrader autograde in its own session; its log goes to a pipe, or to `log` when
    two runs go at once (a pipe nobody reads fills, and its writer then blocks forever)."""
    with log.open("w") if log else nullcontext(subprocess.PIPE) as stderr:
        return subprocess.Popen(nbgrader_cli.command("autograde", ASSIGNMENT, "--force"), cwd=course,
                                env=nbgrader_cli.environment(), stdout=subprocess.DEVNULL, stderr=stderr,
                                text=True, start_new_session=True)


def finish(process: subprocess.Popen, log: Path | None = None) -> tuple[int, str]:
    _, piped = process.communicate(timeout=900)
    return process.returncode, log.read_text() if log else piped


pytestmark = pytest.mark.xdist_group("nothing_lost")  # one unit of work (tests/conftest.py)


@pytest.fixture(scope="module")
def uninterrupted(graded_one_at_a_time):
    """The gradebook of the first N_STUDENTS graded in one uninterrupted run (the session's serial one:
    a student's grades do not depend on who else is in the class)."""
    students, graded = graded_one_at_a_time
    return {key: value for key, value in graded.items() if key[0] in students[:N_STUDENTS]}


def test_a_run_killed_part_way_and_rerun_ends_with_the_same_gradebook(uninterrupted, tmp_path, released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    first = autograde(tmp_path)
    for line in first.stderr:  # kill it once the second student is under way
        if "Creating/updating student with ID" in line and students[1] in line:
            break
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert finish(autograde(tmp_path))[0] == 0
    assert snapshot(tmp_path, students) == uninterrupted


def test_two_runs_started_at_once_take_turns_and_agree(uninterrupted, tmp_path, released_course):
    students = class_course(tmp_path, N_STUDENTS, released_course)
    logs = tmp_path / "first.log", tmp_path / "second.log"
    first = autograde(tmp_path, logs[0])
    time.sleep(0.5)
    second = autograde(tmp_path, logs[1])
    (first_code, first_log), (second_code, second_log) = finish(first, logs[0]), finish(second, logs[1])
    assert first_code == 0 and second_code == 0
    assert "Another grading run" in first_log + second_log
    assert snapshot(tmp_path, students) == uninterrupted
