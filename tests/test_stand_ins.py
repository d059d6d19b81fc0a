"""Does a mistake cost the points of its own exercise only? While an exercise
is graded, the exercises it is built on are the reference's (judge.BUILT_ON),
in every grading path; outside grading, a visible check names the student's
failing function that the exercise calls."""

from __future__ import annotations

import numpy as np
import pytest

import autograder.judge as judge
import solutions.attention as reference
from autograder.judge import CheckFailed, check, standing_in
from autograder.submission import MAX_STAND_IN_ELEMENTS, stand_in_reply
from kit.notebooks import ROOT

STUDENT = '''
import numpy as np

def softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)  # wrong axis

def attention(Q, K, V, mask=None):
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = S + mask
    weights = softmax(S, axis=-1)
    return weights @ V, weights
'''


@pytest.fixture
def student(monkeypatch):
    monkeypatch.setattr(judge, "VISIBLE_CASES", ROOT / "source" / "attention" / "worked_example.npz")
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    namespace = {}
    exec(STUDENT, namespace)
    return namespace


def test_the_reference_stands_in_only_while_the_answer_runs(student):
    own = student["softmax"]
    with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
        assert student["softmax"] is reference.softmax
    assert student["softmax"] is own


def test_the_students_own_function_is_back_even_when_the_answer_raises(student):
    own = student["softmax"]
    with pytest.raises(ZeroDivisionError):
        with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
            1 / 0
    assert student["softmax"] is own


def test_an_exercise_built_on_nothing_swaps_nothing(student):
    with standing_in("softmax", student["softmax"], lambda dep: pytest.fail(f"asked for {dep}")):
        pass


def test_a_visible_check_names_the_failing_function_the_exercise_calls(student):
    with pytest.raises(CheckFailed) as failed:
        check("attention", student["attention"])
    assert "attention calls your softmax, which fails its own check: fix softmax first" in str(failed.value)


def test_while_nbgrader_grades_the_visible_check_counts_the_exercise_alone(student, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check("attention", student["attention"])  # passes: the reference's softmax stands in
    with pytest.raises(CheckFailed):
        check("softmax", student["softmax"])


def test_the_grader_answers_a_stand_in_with_the_reference_value():
    S = np.random.default_rng(0).normal(size=(3, 5))
    reply = stand_in_reply({"call": "softmax", "args": [S], "kwargs": {"axis": -1}}, allowed=("softmax",))
    np.testing.assert_array_equal(reply["value"], reference.softmax(S))


def test_the_grader_passes_the_references_error_on_to_the_students_code():
    reply = stand_in_reply({"call": "raw_scores", "args": [np.ones((2, 3)), np.ones((2, 4))], "kwargs": {}},
                           allowed=("raw_scores",))
    assert reply["error"][0] == "ValueError"


@pytest.mark.parametrize("message, why", [
    ({"call": "attention", "args": [np.ones((2, 2))] * 3, "kwargs": {}}, "no stand-in for 'attention'"),
    ({"call": "softmax", "args": [np.ones(MAX_STAND_IN_ELEMENTS + 1)], "kwargs": {}}, "too large"),
    ({"call": "raw_scores", "args": [np.ones((1 << 13, 1)), np.ones((1 << 13, 1))], "kwargs": {}}, "too large"),
    ({"call": "softmax", "args": [np.array(["a", "b"])], "kwargs": {}}, "not numbers"),
])
def test_the_grader_refuses_a_stand_in_it_was_not_given_or_that_would_cost_too_much(message, why):
    reply = stand_in_reply(message, allowed=("softmax", "raw_scores"))
    assert why in reply["error"][1]


def test_a_function_the_student_never_defined_is_stood_in_and_removed_again(student):
    del student["softmax"]
    with standing_in("attention", student["attention"], lambda dep: getattr(reference, dep)):
        assert student["softmax"] is reference.softmax
    assert "softmax" not in student and "raw_scores" not in student
