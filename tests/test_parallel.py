"""`nbgrader autograde` on every core (autograder/parallel.py): several students at once
give the gradebook one at a time gives, and a student nbgrader cannot grade stops no one else."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course_copy import EXAMPLE, class_course, gradebook_snapshot

pytestmark = pytest.mark.xdist_group("parallel")


def autograde(course: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(nbgrader_cli.command("autograde", "attention", "--force"), cwd=course,
                          env={**nbgrader_cli.environment(), **env}, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def one_at_a_time(tmp_path_factory):
    """The example class (one student of each kind), autograded by nbgrader's own serial loop."""
    course = tmp_path_factory.mktemp("serial")
    students = class_course(course, len(list(EXAMPLE.iterdir())))
    result = autograde(course, KIT_GRADING_WORKERS="1")
    assert result.returncode == 0, result.stderr[-3000:]
    return students, gradebook_snapshot(course, students)


@pytest.fixture(scope="module")
def two_at_a_time(tmp_path_factory, one_at_a_time):
    """The same class with two more students nbgrader cannot grade, autograded two at a time."""
    students, _ = one_at_a_time
    course = tmp_path_factory.mktemp("parallel")
    class_course(course, len(students))
    # A notebook that is not JSON, not set aside: nbgrader's own loop fails on this student.
    shutil.copytree(EXAMPLE / "gus" / "attention", course / "submitted" / "unreadable" / "attention")
    # A timestamp nbgrader cannot read: nbgrader exits from the middle of its loop.
    shutil.copytree(EXAMPLE / "ada" / "attention", course / "submitted" / "bad_clock" / "attention")
    (course / "submitted" / "bad_clock" / "attention" / "timestamp.txt").write_text("yesterday, about noon")
    return course, autograde(course, KIT_GRADING_WORKERS="2")


def test_two_workers_give_the_gradebook_one_worker_gives(one_at_a_time, two_at_a_time):
    students, serial = one_at_a_time
    course, _ = two_at_a_time
    assert gradebook_snapshot(course, students) == serial


def test_students_nbgrader_cannot_grade_are_named_and_stop_no_one_else(one_at_a_time, two_at_a_time):
    students, _ = one_at_a_time
    course, result = two_at_a_time
    assert result.returncode != 0  # as nbgrader's serial loop ends when a student failed
    for student in ("unreadable", "bad_clock"):
        assert f"for student '{student}'" in result.stderr
        assert not (course / "autograded" / student / "attention").exists()
    for student in students:
        assert (course / "autograded" / student / "attention" / "01_worked_example.ipynb").exists()
    started = {line.split("'")[1] for line in result.stderr.splitlines() if "Creating/updating student" in line}
    assert started == {*students, "unreadable", "bad_clock"}  # what kit/demo.py's progress bar counts
