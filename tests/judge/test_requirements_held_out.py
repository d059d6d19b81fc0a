"""Does the grader fail answers that break one requirement the notebook's text states?

tests/shared/corpus/breaks_a_requirement/ holds wrong answers written apart from the
registry's own breakers (autograder/exercises/: `Requirement.broken_by`), as a
student would write them, each right in everything but the one behaviour its
docstring quotes. Each must fail some hidden case of its exercise, and its
visible check too where the exercise has one: the check under an exercise is
as strong as its text, but for a requirement the exercise says no visible case
can show (`Requirement.unseen`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder.cases import REGISTRY, hidden_cases, visible_cases
from tests.judge.test_case_coverage import failed_by
from tests.judge.test_corpus import exercise_of

HELD_OUT = Path(__file__).resolve().parents[1] / "shared" / "corpus" / "breaks_a_requirement"
ANSWERS = sorted(HELD_OUT.glob("*.py"))


def answer(path: Path):
    """(exercise, the student's function) of one held-out file."""
    exercise = exercise_of(path)
    space: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), space)
    return exercise, space[exercise]


def test_every_held_out_answer_quotes_the_behaviour_it_breaks():
    assert len(ANSWERS) >= 20
    for path in ANSWERS:
        assert (ast.get_docstring(ast.parse(path.read_text())) or "").startswith("Breaks: "), path.name
        assert exercise_of(path) in REGISTRY, path.name


@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.stem)
def test_some_hidden_case_fails_an_answer_that_breaks_a_stated_requirement(path):
    exercise, func = answer(path)
    assert failed_by(func, hidden_cases(exercise)), f"{path.stem} passes every hidden case of {exercise}"


def unseen_by_the_check(path: Path) -> bool:
    """Does the answer break a requirement its exercise says no visible case can show (`Requirement.unseen`)?"""
    quoted = ast.get_docstring(ast.parse(path.read_text())).removeprefix("Breaks: ")
    return any(r.unseen and r.says in quoted for r in REGISTRY[exercise_of(path)].requirements)


@pytest.mark.parametrize("path", [p for p in ANSWERS if REGISTRY[exercise_of(p)].points.check is not None
                                  and not unseen_by_the_check(p)], ids=lambda p: p.stem)
def test_the_visible_check_fails_an_answer_that_breaks_a_stated_requirement(path):
    exercise, func = answer(path)
    visible = [c for c in visible_cases() if c["func"] == exercise]
    assert failed_by(func, visible), f"{path.stem} passes the visible check of {exercise}"
