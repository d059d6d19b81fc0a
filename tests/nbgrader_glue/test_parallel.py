"""`nbgrader autograde` and `nbgrader generate_feedback` on every core (kit/nbgrader_glue/autograde.py): several
students at once give the gradebook and the feedback one at a time gives, and a student nbgrader cannot
grade stops no one else."""

from __future__ import annotations

import shutil

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT
from tests.shared.course_copy import EXAMPLE, autograde, class_course, gradebook_snapshot

pytestmark = pytest.mark.xdist_group("parallel")


@pytest.fixture(scope="module")
def two_at_a_time(tmp_path_factory, graded_one_at_a_time, released_course):
    """The same class with two more students nbgrader cannot grade, autograded two at a time."""
    students, _ = graded_one_at_a_time
    course = tmp_path_factory.mktemp("parallel")
    class_course(course, len(students), released_course)
    # A notebook that is not JSON, not set aside beforehand: the kit sets it aside and grades the rest.
    shutil.copytree(EXAMPLE / "gus" / "attention", course / "submitted" / "unreadable" / "attention")
    # A file where the student's autograded folder must go (an instructor's slip): nbgrader fails the student in
    # the middle of its loop, in the worker grading them.
    shutil.copytree(EXAMPLE / "ada" / "attention", course / "submitted" / "blocked" / "attention")
    (course / "autograded").mkdir()
    (course / "autograded" / "blocked").write_text("not a folder")
    return course, autograde(course, KIT_GRADING_WORKERS="2")


def test_two_workers_give_the_gradebook_one_worker_gives(graded_one_at_a_time, two_at_a_time):
    students, serial = graded_one_at_a_time
    course, _ = two_at_a_time
    assert gradebook_snapshot(course, students) == serial


def test_a_student_nbgrader_cannot_grade_is_named_and_stops_no_one_else(graded_one_at_a_time, two_at_a_time):
    students, _ = graded_one_at_a_time
    course, result = two_at_a_time
    assert result.returncode != 0  # as nbgrader's serial loop ends when a student failed
    assert "for student 'blocked'" in result.stderr
    assert (course / "autograded" / "blocked").read_text() == "not a folder"
    assert "for student 'unreadable'" not in result.stderr  # its unreadable notebook is set aside, the rest graded
    assert (course / "submitted" / "unreadable" / "attention" / "03_softmax_and_mix.ipynb.unreadable").exists()
    for student in [*students, "unreadable"]:
        assert (course / "autograded" / student / "attention" / "01_worked_example.ipynb").exists()
    started = {line.split("'")[1] for line in result.stderr.splitlines() if "Creating/updating student" in line}
    assert started == {*students, "unreadable"}  # what kit/demo.py's progress bar counts (blocked failed first)


def test_two_workers_write_the_feedback_one_worker_writes(graded_one_at_a_time, two_at_a_time, tmp_path):
    students, _ = graded_one_at_a_time
    course, _ = two_at_a_time
    pages = {}
    for workers in ("1", "2"):
        copy = shutil.copytree(course, tmp_path / workers, symlinks=True)
        for student in [*students[3:], "unreadable"]:  # three students are enough for two workers, and cheaper
            shutil.rmtree(copy / "autograded" / student)
        result = nbgrader_cli.run("generate_feedback", ASSIGNMENT, cwd=copy, env={"KIT_GRADING_WORKERS": workers},
                                  capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        pages[workers] = {str(p.relative_to(copy / "feedback")): p.read_bytes()
                          for p in (copy / "feedback").rglob("*.html")}
    assert {page.split("/")[0] for page in pages["2"]} == set(students[:3])
    assert pages["2"] == pages["1"]


def _two_blocked_students_autograded_here(released_course, course, workers: str) -> tuple[list[str], Exception]:
    """autograde run in this process (as kit/demo.py runs it) with `workers`, on two students nbgrader fails in
    its loop (as above: a file where their autograded folder must go): (its log lines, its failure)."""
    shutil.copytree(released_course, course, symlinks=True)
    (course / "autograded").mkdir()
    for student in ("blocked", "also_blocked"):
        shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
        (course / "autograded" / student).write_text("not a folder")
    lines = []
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KIT_GRADING_WORKERS", workers)
        with pytest.raises(nbgrader_cli.NbgraderFailed) as failed:
            nbgrader_cli.run_here("autograde", ASSIGNMENT, "--force", cwd=course, on_line=lines.append)
    return lines, failed.value


def test_run_in_this_process_a_workers_error_reaches_the_log_and_names_its_student(released_course, tmp_path):
    # kit/demo.py runs nbgrader in its own process (run_here), its log an in-memory stream: a worker process
    # forked from it wrote to its own copy of that stream, and its student's error never came back.
    lines, failed = _two_blocked_students_autograded_here(released_course, tmp_path / "course", workers="2")
    for student in ("blocked", "also_blocked"):
        assert any("error processing assignment:" in line and f"/submitted/{student}/" in line for line in lines)
    assert "Traceback" in str(failed)  # the message leads with the first error's traceback


def test_no_more_worker_processes_are_forked_than_there_are_students(released_course, tmp_path):
    """Eight workers asked for, two students: two processes, said in the log (six idle forks held memory)."""
    lines, _ = _two_blocked_students_autograded_here(released_course, tmp_path / "course", workers="8")
    assert any("Converting 2 students' folders in 2 worker processes" in line for line in lines), lines
