"""Does one autograde grade each student once, whatever nbgrader does to a notebook's resources?"""

from __future__ import annotations

import copy
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from autograder.grade import Report
from kit.nbgrader_glue import grading_run
from kit.nbgrader_glue.grading_run import RUN, GradingRun


def _run(tmp_path: Path, students) -> GradingRun:
    coursedir = CourseDirectory(root=str(tmp_path))
    return GradingRun(coursedir, students, threads=2)


def test_a_notebooks_resources_copied_by_nbconvert_keep_the_one_run(tmp_path):
    run = _run(tmp_path, [("ada", "attention")])
    resources = {"nbgrader": {"student": "ada"}, RUN: run}
    assert copy.deepcopy(resources)[RUN] is run


def test_every_student_is_graded_once_however_many_notebooks_ask(tmp_path, monkeypatch):
    graded = []

    def grade(folder, source, confine, budget):
        graded.append(Path(folder).parent.name)
        return Report({}, {}, [])

    monkeypatch.setattr(grading_run, "grade_submission", grade)
    run = _run(tmp_path, [("ada", "attention"), ("bo", "attention")])
    for _ in range(9):  # one ask per notebook
        for student in ("ada", "bo"):
            copy.deepcopy({RUN: run})[RUN].report(student, "attention")
    assert sorted(graded) == ["ada", "bo"]


def test_a_report_given_by_the_cluster_is_used_and_nobody_is_graded_here(tmp_path, monkeypatch):
    monkeypatch.setattr(grading_run, "grade_submission", lambda *a: (_ for _ in ()).throw(AssertionError("graded")))
    given = Report({}, {"01_worked_example.ipynb": "notebook missing"}, [])
    run = _run(tmp_path, [("ada", "attention")]).for_one(("ada", "attention"), given)
    assert run.report("ada", "attention") is given


def test_a_run_of_many_students_grades_a_few_ahead_and_keeps_a_few_reports(tmp_path, monkeypatch):
    graded = []

    def grade(folder, source, confine, budget):
        graded.append(Path(folder).parent.name)
        return Report({}, {}, [])

    monkeypatch.setattr(grading_run, "grade_submission", grade)
    students = [f"s{i:03d}" for i in range(40)]
    run = _run(tmp_path, [(student, "attention") for student in students])
    for student in students[:10]:
        for _ in range(9):
            run.report(student, "attention")
        assert len(run._reports) <= grading_run.KEPT_ASKED + run.threads
    run._pool.shutdown()
    assert sorted(graded) == students[:12]  # the ten asked for, and the two (threads) after the last
    assert run.report("s000", "attention") == Report({}, {}, [])  # read back from beside its notebooks
    assert sorted(graded) == students[:12]
