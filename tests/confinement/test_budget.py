"""Does a student whose grading costs the grader more than its budget fail the remaining cases, saying
so, while every other student is graded as usual? (autograder/budget.py, course.toml [grading], issue 22)"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from autograder.budget import BUDGET_SPENT, GraderBudget
from autograder.cases import shipped_visible_cases
from autograder.grade import grade_submission, measured_first
from autograder.sandbox import probe
from autograder.source_assignment import SourceAssignment
from autograder.submission import SOURCE
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
    # The report lists cells in the notebooks' order; grading takes the exercises in grade.py's order.
    order = measured_first(SourceAssignment.of(SOURCE).graded_cells, shipped_visible_cases(SOURCE))
    exercise_of = {cell.grade_id: cell.exercise for cell in SourceAssignment.of(SOURCE).graded_cells}
    cells = sorted(reports["over"].cells.items(), key=lambda item: order.index(exercise_of[item[0]]))
    spent = [BUDGET_SPENT in c.message for _, c in cells]
    assert any(spent)
    first = spent.index(True)
    assert all(c.earned == 0 for (_, c), was_spent in zip(cells, spent) if was_spent)
    assert all(c.earned == c.possible for (_, c), was_spent in zip(cells, spent) if not was_spent)
    # Every exercise after the first one to find the budget spent finds it spent too.
    assert all(spent[i] for i, (grade_id, _) in enumerate(cells)
               if order.index(exercise_of[grade_id]) > order.index(exercise_of[cells[first][0]]))
    assert "budget per student (0.04 s of its CPU time, 1800 s on the clock" in cells[first][1].message
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
