"""Does the feedback's grade step put on each cell the score, points and comment nbgrader's GetGrades puts there,
in as many queries for forty checks as for two, and for a student's next page in none?"""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import GetGrades

from kit.course import COURSE_ID
from kit.nbgrader_glue.get_grades import GetGradesAtOnce
from kit.nbgrader_glue.per_student import one_read_per_student
from kit.nbgrader_glue.grading_run import RUN
from kit.nbgrader_glue.preprocessors import GradeOutOfProcess
from kit.nbgrader_glue.save_scores import SaveScoresFromReport
from tests.shared.gradebooks import statements_counted
from tests.nbgrader_glue.test_save_scores import ASSIGNMENT, NOTEBOOK, STUDENT, _GivenReport, _gradebook, _notebook, _report


def _graded(empty: Path, folder: Path, checks: int):
    """(notebook, resources) of STUDENT's notebook autograded into a fresh gradebook, a grader's comment on it."""
    nb = _notebook(checks)
    url = _gradebook(empty, folder, nb)
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": url},
                 RUN: _GivenReport(_report({f"hidden_softmax_{i}": float(i % 2) for i in range(checks)}))}
    nb, resources = GradeOutOfProcess().preprocess(nb, resources)
    SaveScoresFromReport().preprocess(nb, resources)
    _grader_comments(resources, "Right, and say why.")
    return nb, {"nbgrader": resources["nbgrader"]}


def _got(step, nb, resources):
    nb, resources = step().preprocess(copy.deepcopy(nb), copy.deepcopy(resources))
    return [cell.metadata.nbgrader for cell in nb.cells], resources["nbgrader"]


def test_does_each_cell_get_the_score_points_and_comment_nbgraders_getgrades_gives_it(empty_gradebook, tmp_path):
    nb, resources = _graded(empty_gradebook, tmp_path / "course", checks=4)
    cells, notebook = _got(GetGradesAtOnce, nb, resources)
    assert (cells, notebook) == _got(GetGrades, nb, resources)
    assert {c["grade_id"]: c.get("comment") for c in cells}["why_scale"] == "Right, and say why."
    assert notebook["max_score"] == 9.0  # 4 checks, two written answers of 2, a task of 1


def test_does_a_notebook_of_forty_checks_take_as_many_queries_as_one_of_two(empty_gradebook, tmp_path):
    counts = []
    for checks in (40, 2):
        nb, resources = _graded(empty_gradebook, tmp_path / f"{checks}", checks)
        with statements_counted() as count:
            GetGradesAtOnce().preprocess(nb, resources)
        counts.append(count[0])
    assert counts[0] == counts[1]


def test_does_a_students_next_page_read_nothing_while_their_rows_are_kept_and_the_gradebook_anew_after(
        empty_gradebook, tmp_path):
    nb, resources = _graded(empty_gradebook, tmp_path / "course", checks=3)
    with one_read_per_student():
        first = _got(GetGradesAtOnce, nb, resources)
        with statements_counted() as count:
            assert _got(GetGradesAtOnce, nb, resources) == first
        assert count[0] == 0
        _grader_comments(resources, "Seen after the run.")
        assert _got(GetGradesAtOnce, nb, resources) == first  # one run's pages agree with each other
    cells, _ = _got(GetGradesAtOnce, nb, resources)
    assert {c["grade_id"]: c.get("comment") for c in cells}["why_scale"] == "Seen after the run."
    assert (cells, _) == _got(GetGrades, nb, resources)


def test_does_a_notebook_missing_from_the_gradebook_fail_its_page_with_nbgraders_message(empty_gradebook, tmp_path):
    nb, resources = _graded(empty_gradebook, tmp_path / "course", checks=2)
    resources["nbgrader"]["notebook"] = "99_not_released"
    for kept in (False, True):
        with one_read_per_student() if kept else contextlib.nullcontext():
            with pytest.raises(MissingEntry, match=f"No such (grade|comment): {ASSIGNMENT}/99_not_released/"):
                _got(GetGradesAtOnce, nb, resources)
            nb_without_cells = nbformat.v4.new_notebook()
            with pytest.raises(MissingEntry, match=f"No such submitted notebook: {ASSIGNMENT}/99_not_released "):
                _got(GetGradesAtOnce, nb_without_cells, resources)


def _grader_comments(resources: dict, comment: str) -> None:
    with Gradebook(resources["nbgrader"]["db_url"], COURSE_ID) as gb:
        gb.find_comment("why_scale", NOTEBOOK, ASSIGNMENT, STUDENT).manual_comment = comment
        gb.db.commit()
