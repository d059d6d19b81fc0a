"""Does a student whose grading costs the grader more than its budget fail the remaining cases, saying
so, while every other student is graded as usual? (autograder/budget.py, course.toml [grading], issue 22)"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from autograder.budget import BUDGET_SPENT, GraderBudget
from autograder.grade import grade_submission
from autograder.sandbox import probe
from kit.course import course
from tests.shared.adversarial.build import SOLVED
from tests.shared.course_copy import copy_course

pytestmark = pytest.mark.skipif(probe()[0] is None, reason=f"this machine allows no confinement: {probe()[1]}")


def solved(folder: Path) -> Path:
    return shutil.copytree(SOLVED, folder / "attention")


def test_once_the_cpu_budget_is_spent_every_remaining_case_fails_saying_so_and_no_one_else(tmp_path):
    # An honest student costs the grader about a tenth of a second of CPU here; the other is graded at the same time.
    folders, reports = {who: solved(tmp_path / who) for who in ("over", "other")}, {}
    budgets = {"over": GraderBudget(cpu_seconds=0.04), "other": GraderBudget()}
    threads = [threading.Thread(target=lambda w=w: reports.setdefault(w, grade_submission(folders[w], budget=budgets[w])))
               for w in folders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cells = list(reports["over"].cells.values())  # in the order they were graded
    spent = [BUDGET_SPENT in c.message for c in cells]
    assert any(spent)
    first = spent.index(True)
    assert all(spent[first:]) and all(c.earned == 0 for c in cells[first:])
    assert all(c.earned == c.possible for c in cells[:first])
    assert "budget per student (0.04 s of its CPU time, 1800 s on the clock" in cells[first].message
    assert all(c.earned == c.possible for c in reports["other"].cells.values())


def test_once_the_clock_budget_is_spent_no_case_is_graded(tmp_path):
    report = grade_submission(solved(tmp_path), budget=GraderBudget(wall_seconds=0))
    assert all(BUDGET_SPENT in c.message and c.earned == 0 for c in report.cells.values())


def test_the_course_sets_the_budget_and_has_a_default(tmp_path):
    course_folder = copy_course(tmp_path / "course")
    assert course(course_folder).grader_budget == GraderBudget(120, 1800)
    toml = course_folder / "course.toml"
    toml.write_text(toml.read_text().replace("grader_cpu_seconds = 120\n", "grader_cpu_seconds = 5\n")
                    .replace("grader_wall_seconds = 1800\n", ""))
    assert course(course_folder).grader_budget == GraderBudget(5, GraderBudget.wall_seconds)


def test_a_check_whose_hidden_cases_the_budget_cut_short_is_not_graded_either_and_says_so():
    # The budget can run out between an exercise's visible and hidden cases: its check then earns nothing (a check's
    # points count only once the hidden cases accept the answer) and must say why, as the hidden cell does.
    from autograder.answer_key import reference_of
    from autograder.cases import visible_cases
    from autograder.grade import _judged
    from autograder.judge import Outcome
    from autograder.judge.calling import outcome_of

    def outcome_for(case):
        hidden = not any(case is shown for shown in visible)
        return Outcome.raising(BUDGET_SPENT, "the grader's budget is spent") if hidden else \
            outcome_of(reference_of("softmax"), case)

    visible = [case for case in visible_cases() if case["func"] == "softmax"]
    verdicts = _judged("softmax", ["check_softmax", "hidden_softmax"], visible, outcome_for)
    assert all(BUDGET_SPENT in verdict.message for verdict in verdicts.values()), verdicts
