"""Does autograde's late penalty step leave the gradebook as nbgrader's AssignLatePenalties leaves it, on time
(a penalty from an earlier, late hand-in cleared) and late, reading a student's submission once?"""

from __future__ import annotations

import copy
import datetime
import logging

import pytest
from nbgrader.api import Gradebook
from nbgrader.preprocessors import AssignLatePenalties

from kit.course import COURSE_ID
from kit.nbgrader_glue.late import ProportionalLatePenalty
from kit.nbgrader_glue.engines import shared_engines
from kit.nbgrader_glue.gradebook_turns import AssignLatePenaltiesInTurn
from kit.nbgrader_glue.late_penalties import AssignLatePenaltiesAtOnce
from kit.nbgrader_glue.per_student import one_read_per_student
from tests.shared.gradebooks import statements_counted
from tests.nbgrader_glue.test_save_scores import ASSIGNMENT, NOTEBOOK, STUDENT, _gradebook, _notebook

DUE = datetime.datetime(2026, 12, 1, 12, 0)


def _handed_in(empty, folder, hours_late: float, earlier_penalty: float | None) -> str:
    """A gradebook where STUDENT handed NOTEBOOK in `hours_late` past the deadline, with 3.5 points and the
    penalty an earlier run gave."""
    url = _gradebook(empty, folder, _notebook(checks=2))
    with Gradebook(url, COURSE_ID) as gb:
        gb.find_assignment(ASSIGNMENT).duedate = DUE
        gb.find_submission(ASSIGNMENT, STUDENT).timestamp = DUE + datetime.timedelta(hours=hours_late)
        gb.find_grade("hidden_softmax_0", NOTEBOOK, ASSIGNMENT, STUDENT).auto_score = 2.0
        gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, STUDENT).late_submission_penalty = earlier_penalty
        gb.db.commit()
    return url


def _penalised(step, url: str, caplog) -> tuple:
    """(the notebook's penalty, the warnings logged, statements) once `step` has run."""
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT, "student": STUDENT, "db_url": url}}
    caplog.clear()
    with pytest.MonkeyPatch.context() as patch, shared_engines(), caplog.at_level(logging.WARNING), \
            statements_counted() as count:  # as autograde opens the gradebook
        patch.setattr(AssignLatePenalties, "plugin_class", ProportionalLatePenalty)
        step().preprocess(copy.deepcopy(_notebook(checks=2)), resources)
    with Gradebook(url, COURSE_ID) as gb:
        penalty = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, STUDENT).late_submission_penalty
    return penalty, [r.getMessage() for r in caplog.records], count[0]


@pytest.mark.parametrize("hours_late, earlier_penalty", [(-2, None), (-2, 1.5), (0, 1.5), (3, None), (3, 0.5)],
                         ids=["on time", "on time, late before", "on the minute", "late", "late, late before"])
def test_does_the_notebook_get_the_penalty_and_warnings_nbgraders_step_gives_it(empty_gradebook, tmp_path, caplog,
                                                                              hours_late, earlier_penalty):
    ours, theirs = (_penalised(step, _handed_in(empty_gradebook, tmp_path / name, hours_late, earlier_penalty), caplog)
                    for step, name in ((AssignLatePenaltiesAtOnce, "kit"), (AssignLatePenaltiesInTurn, "nbgrader")))
    assert ours[:2] == theirs[:2]
    assert (ours[0] is None) == (hours_late <= 0)


def test_does_a_students_next_notebook_on_time_read_nothing_of_their_submission(empty_gradebook, tmp_path, caplog):
    url = _handed_in(empty_gradebook, tmp_path / "kit", -2, 1.5)
    with one_read_per_student():
        first, second = (_penalised(AssignLatePenaltiesAtOnce, url, caplog) for _ in range(2))
    alone = _penalised(AssignLatePenaltiesAtOnce, url, caplog)
    assert first[0] is second[0] is alone[0] is None
    assert second[2] < min(first[2], alone[2])  # statements


def test_autograde_warns_when_course_tomls_due_date_is_not_the_gradebooks(tmp_path, copy_released):
    """A due date edited in course.toml without `make release` was silently not the one late penalties were
    counted from (nbgrader counts from the gradebook's); a gradebook with none gave no penalty at all."""
    from kit.course import db_url
    from kit.nbgrader_glue.late import due_date_problem
    from kit.release import register_in_gradebook

    course = copy_released(tmp_path / "course")
    assert "holds none" in due_date_problem(course, db_url(course), COURSE_ID, "attention")  # generate_assignment's
    register_in_gradebook(course)  # as `make release` does
    assert due_date_problem(course, db_url(course), COURSE_ID, "attention") is None
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace('duedate = "2026-12-14T23:59:00+00:00"',
                                             'duedate = "2026-12-17T23:59:00+00:00"'))
    said = due_date_problem(course, db_url(course), COURSE_ID, "attention")
    assert said.startswith("course.toml's due date of attention is 2026-12-17T23:59:00+00:00, but the gradebook, "
                           "which late penalties are counted from, holds 2026-12-14 23:59 UTC: run `make release`")
    with Gradebook(db_url(course), COURSE_ID) as gradebook:
        gradebook.update_or_create_assignment("attention", duedate=None)
    assert "holds none" in due_date_problem(course, db_url(course), COURSE_ID, "attention")
    assert due_date_problem(course, db_url(course), COURSE_ID, "another") is None
