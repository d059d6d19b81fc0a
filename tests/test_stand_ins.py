"""Does a mistake cost the points of its own exercise only? While an exercise
is graded, the exercises it is built on are the reference's (judge.BUILT_ON),
in every grading path; outside grading, a visible check names the student's
failing function that the exercise calls."""

from __future__ import annotations

import numpy as np
import pytest

import autograder.judge.checks as visible_checks
import solutions.attention as reference
from autograder.judge import CheckFailed, check, standing_in
from autograder.judge.checks import ANSWER_KEY
from autograder.submission import MAX_STAND_IN_ELEMENTS, stand_in_reply
from kit.notebooks import ROOT

STUDENT = '''
import numpy as np

def softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)  # wrong axis

def attention(Q, K, V, mask=None):
    S = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1] ** 0.5  # a Python float keeps float32
    if mask is not None:
        S = S + np.asarray(mask, dtype=S.dtype)
    weights = softmax(S, axis=-1)
    return weights @ V, weights
'''


@pytest.fixture
def student(monkeypatch):
    monkeypatch.setattr(visible_checks, "VISIBLE_CASES", ROOT / "source" / "attention" / "worked_example.npz")
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


def test_the_note_appears_only_when_the_answer_did_call_the_failing_function(student):
    """An answer that calls nothing it is built on, or is not started, is never told it calls it."""
    exec('''
def attention(Q, K, V, mask=None):
    return V + 1.0, np.zeros((Q.shape[0], K.shape[0]))  # wrong, and calls no softmax
''', student)
    with pytest.raises(CheckFailed) as failed:
        check("attention", student["attention"])
    assert "Note:" not in str(failed.value) and "calls your" not in str(failed.value)
    stub = {**student, "NotStarted": NotImplementedError}
    exec("def attention(Q, K, V, mask=None):\n    raise NotStarted()\n", stub)
    with pytest.raises(CheckFailed) as failed:
        check("attention", stub["attention"])
    assert "not started" in str(failed.value) and "calls your" not in str(failed.value)


def test_the_functions_an_answer_calls_are_its_own_again_after_the_check(student):
    own = student["softmax"]
    with pytest.raises(CheckFailed):
        check("attention", student["attention"])
    assert student["softmax"] is own


def test_while_nbgrader_grades_the_visible_check_counts_the_exercise_alone(student, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(ANSWER_KEY, "autograder.answer_key")  # as the kit's nbgrader configuration sets it
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


# Notebook 09: classify_head is built on the four measures (its reference is model/heads.py).
MEASURES = '''
import numpy as np

def self_score(A):
    return float(np.diagonal(np.asarray(A))[1:].mean())

def previous_score(A):
    return float(np.diagonal(np.asarray(A), offset=1).mean())  # one token ahead: always 0 on a causal grid

def start_score(A):
    return float(np.asarray(A)[1:, 0].mean())

def induction_score(A, tokens):
    A, tokens = np.asarray(A), np.asarray(tokens)
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    targets[:, 1:] = tokens[:, None] == tokens[None, :-1]
    targets &= np.tril(np.ones((n, n), dtype=bool), k=-1)
    rows = targets.any(axis=1)
    return float((A * targets).sum(axis=1)[rows].mean()) if rows.any() else 0.0

def classify_head(A, tokens):
    scores = [self_score(A), previous_score(A), start_score(A), induction_score(A, tokens)]
    best = int(np.argmax(scores))
    return ("self", "previous", "start", "induction")[best] if scores[best] >= 0.5 else "spread"
'''


@pytest.fixture
def measures(student):
    namespace = {}
    exec(MEASURES, namespace)
    return namespace


def test_classify_head_is_graded_with_the_reference_measures_in_a_hidden_check(measures):
    from autograder.incell import hidden_check
    hidden_check("classify_head", measures["classify_head"])  # passes: the reference's previous_score stands in
    with pytest.raises(CheckFailed):
        hidden_check("previous_score", measures["previous_score"])


def test_classify_head_visible_check_counts_it_alone_while_nbgrader_grades(measures, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv(ANSWER_KEY, "autograder.answer_key")  # as the kit's nbgrader configuration sets it
    check("classify_head", measures["classify_head"])


def test_outside_grading_classify_head_runs_the_students_measures_and_names_the_failing_one(measures):
    with pytest.raises(CheckFailed) as failed:
        check("classify_head", measures["classify_head"])
    assert "classify_head calls your previous_score, which fails its own check" in str(failed.value)
