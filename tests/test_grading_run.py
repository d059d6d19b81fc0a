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
