"""Does autograde's score step write each check's score from the report, the rest as nbgrader's SaveAutoGrades
writes it, in a bounded number of queries per notebook, reading a student's rows once?"""

from __future__ import annotations

import copy
import shutil
import warnings
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.api import Gradebook
from nbgrader.preprocessors import SaveAutoGrades
from sqlalchemy.exc import SAWarning

from autograder.grade import CellGrade, Report
from autograder.sandbox import BUBBLEWRAP
from kit.course import COURSE_ID
from kit.nbgrader_glue.grading_run import RUN
from kit.nbgrader_glue.per_student import one_read_per_student
from kit.nbgrader_glue.preprocessors import GradeOutOfProcess
from kit.nbgrader_glue.save_scores import SaveScoresFromReport
from tests.shared.gradebooks import by_name, released_cell, statements_counted

ASSIGNMENT, NOTEBOOK, STUDENT = "attention", "01_softmax", "ada"


def _notebook(checks: int) -> nbformat.NotebookNode:
    """`checks` hidden checks, an answer cell the student filled in, a written answer left as released and one
    answered, a task."""
    answer = released_cell(new_code_cell, "softmax_answer", "raise NotImplementedError()", solution=True)
    answered = released_cell(new_markdown_cell, "why_scale", "YOUR ANSWER HERE", points=2, grade=True, solution=True)
    answer.source = answered.source = "the student's answer"
    cells = [answer, answered,
             released_cell(new_markdown_cell, "why_mask", "YOUR ANSWER HERE", points=2, grade=True, solution=True),
             released_cell(new_markdown_cell, "plot_task", "Plot the weights.", points=1, task=True)]
    cells += [released_cell(new_code_cell, f"hidden_softmax_{i}", "# hidden", points=1, grade=True, locked=True)
              for i in range(checks)]
    return new_notebook(cells=cells)


def _gradebook(empty: Path, folder: Path, nb: nbformat.NotebookNode) -> str:
    """A copy of the `empty` gradebook in `folder` with `nb` released and handed in by STUDENT, a grader's score
    already on two cells."""
    folder.mkdir()
    url = f"sqlite:///{shutil.copy(empty, folder)}"
    with Gradebook(url, COURSE_ID) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        for cell in nb.cells:
            meta = cell.metadata.nbgrader
            if meta["grade"]:
                gb.add_grade_cell(meta["grade_id"], NOTEBOOK, ASSIGNMENT, max_score=meta["points"],
                                  cell_type=cell.cell_type)
            if meta["solution"]:
                gb.add_solution_cell(meta["grade_id"], NOTEBOOK, ASSIGNMENT)
            if meta["task"]:
                gb.add_task_cell(meta["grade_id"], NOTEBOOK, ASSIGNMENT, max_score=meta["points"],
                                 cell_type=cell.cell_type)
        gb.add_student(STUDENT)
        with warnings.catch_warnings():  # nbgrader's add_submission autoflushes half-built objects, harmlessly
            warnings.simplefilter("ignore", SAWarning)
            gb.add_submission(ASSIGNMENT, STUDENT)
        for grade_id in ("why_scale", "hidden_softmax_1"):
            gb.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, STUDENT).manual_score = 1.5
        gb.db.commit()
    return url


class _GivenReport:
    def __init__(self, report: Report):
        self._report = report

    def report(self, student: str, assignment: str) -> Report:
        return self._report


def _report(earned: dict[str, float]) -> Report:
    return Report({g: CellGrade(NOTEBOOK, g, e, 1.0, "passed" if e == 1 else f"{g}: wrong")
                   for g, e in earned.items()}, {}, [], BUBBLEWRAP)


def _saved(step, empty: Path, folder: Path, nb, report: Report) -> dict:
    """The gradebook once `step` has saved STUDENT's notebook `nb` graded by `report` (outputs as
    GradeOutOfProcess writes them)."""
    url = _gradebook(empty, folder, nb)
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": url},
                 RUN: _GivenReport(report)}
    nb, resources = GradeOutOfProcess().preprocess(copy.deepcopy(nb), resources)
    step().preprocess(nb, resources)
    return by_name(url)


def test_all_or_nothing_scores_reach_the_gradebook_as_nbgraders_own_step_writes_them(empty_gradebook, tmp_path):
    nb = _notebook(checks=4)
    report = _report({"hidden_softmax_0": 1.0, "hidden_softmax_1": 0.0, "hidden_softmax_2": 1.0})  # _3: not graded
    kit = _saved(SaveScoresFromReport, empty_gradebook, tmp_path / "kit", nb, report)
    assert kit == _saved(SaveAutoGrades, empty_gradebook, tmp_path / "nbgrader", nb, report)
    assert kit[STUDENT, NOTEBOOK, "hidden_softmax_1"] == (0.0, 1.5, None, 1.0, True)  # the grader's score kept
    assert kit[STUDENT, NOTEBOOK, "hidden_softmax_3"][0] == 0  # NotGraded: no points, as its error decodes
    assert kit[STUDENT, NOTEBOOK, "why_mask", "comment"] == ("No response.", None)


def test_a_partial_score_in_the_report_reaches_the_gradebook_as_is(empty_gradebook, tmp_path):
    report = _report({"hidden_softmax_0": 0.25})  # grade.py gives all or nothing today: another grader may not
    kit = _saved(SaveScoresFromReport, empty_gradebook, tmp_path / "kit", _notebook(checks=2), report)
    assert kit[STUDENT, NOTEBOOK, "hidden_softmax_0"] == (0.25, None, None, 1.0, False)


def _statements_saving(empty: Path, folder: Path, checks: int) -> int:
    nb = _notebook(checks)
    url = _gradebook(empty, folder, nb)
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": url},
                 RUN: _GivenReport(_report({f"hidden_softmax_{i}": float(i % 2) for i in range(checks)}))}
    with statements_counted() as count:
        SaveScoresFromReport().preprocess(nb, resources)
    return count[0]


def test_a_notebooks_scores_take_as_many_queries_for_forty_checks_as_for_two(empty_gradebook, tmp_path):
    forty, two = (_statements_saving(empty_gradebook, tmp_path / f"{n}", n) for n in (40, 2))
    assert forty == two


def test_does_a_grade_given_by_hand_during_the_students_run_mark_it_for_a_look_though_its_row_was_read_before(
        empty_gradebook, tmp_path):
    nb = _notebook(checks=2)
    url = _gradebook(empty_gradebook, tmp_path / "course", nb)
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": url},
                 RUN: _GivenReport(_report({"hidden_softmax_0": 1.0, "hidden_softmax_1": 1.0}))}
    nb, resources = GradeOutOfProcess().preprocess(nb, resources)
    with one_read_per_student():
        with statements_counted() as first:
            SaveScoresFromReport().preprocess(nb, resources)
        assert by_name(url)[STUDENT, NOTEBOOK, "hidden_softmax_0"] == (1.0, None, None, 1.0, False)
        with Gradebook(url, COURSE_ID) as gb:  # a grader, between two notebooks of the student's run
            gb.find_grade("hidden_softmax_0", NOTEBOOK, ASSIGNMENT, STUDENT).manual_score = 0.5
            gb.db.commit()
        with statements_counted() as second:
            SaveScoresFromReport().preprocess(nb, resources)
    assert second[0] < first[0]  # the rows' ids were read once
    assert by_name(url)[STUDENT, NOTEBOOK, "hidden_softmax_0"] == (1.0, 0.5, None, 1.0, True)
