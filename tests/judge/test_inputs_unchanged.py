"""No answer may change the arrays it is given: every grading path compares each input with a pristine copy.

A change is the exercise's own failure (kind "changed input", a message naming the input), in the visible
check, the in-cell hidden check, the grading child (its outcome crosses the wire) and the kit's grading of a
submission; an answer that copies first and then works in place passes, and no other exercise loses anything.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import autograder.judge.checks as visible_checks
from autograder.answer_key import reference_of
from autograder.cases import EXERCISES, hidden_cases, visible_cases
from autograder.judge import KINDS, CheckFailed, case_label, Outcome, check, diagnose, outcome_from_wire, outcome_of, \
    outcome_to_wire
from autograder.submission import Submission
from kit.notebooks import ROOT
from tests.shared.corpus_submissions import cells_of, make_submission

HERE = Path(__file__).resolve().parent / "inputs_unchanged"
IN_PLACE, COPY_FIRST = HERE / "softmax_in_place.py", HERE / "softmax_copy_first.py"
MESSAGE = "softmax changed the caller's S (argument 1) in place: work on a copy, never write into an input"


def _student(path: Path, name: str):
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[name]


def _writing_into_input(reference):
    """The reference, which then writes into the first array it was given (whatever its dtype)."""
    def answer(*args, **kwargs):
        value = reference(*args, **kwargs)
        target = next(a for a in [*args, *kwargs.values()] if isinstance(a, np.ndarray) and a.size)
        target.flat[0] = not target.flat[0] if target.dtype == bool else (0 if target.flat[0] != 0 else 1)
        return value
    return answer


WITH_ARRAYS = [(name, number) for name in EXERCISES for number, case in enumerate(hidden_cases(name))
               if case.get("args") is not None and not case.get("raises")
               and any(isinstance(a, np.ndarray) and a.size for a in [*case["args"], *case["kwargs"].values()])]


def test_changed_input_is_a_kind_of_failure_of_its_own():
    assert "changed input" in KINDS


@pytest.mark.parametrize("name", sorted({name for name, _ in WITH_ARRAYS}))
def test_an_answer_that_writes_into_an_input_fails_every_case_it_does_so_in(name):
    answer = _writing_into_input(reference_of(name))
    answer.__name__ = name
    for number, case in enumerate(hidden_cases(name)):
        if (name, number) not in WITH_ARRAYS:
            continue
        found = diagnose(case_label(name, case), outcome_of(answer, case), case)
        assert found is not None and found.kind == "changed input", (case["label"], found)
        assert f"{name} changed the caller's " in found.message and "never write into an input" in found.message


@pytest.mark.parametrize("name", sorted({name for name, _ in WITH_ARRAYS}))
def test_the_reference_leaves_every_input_unchanged(name):
    for case in hidden_cases(name):
        outcome = outcome_of(reference_of(name), case)
        assert not outcome.changed_input, (case["label"], outcome.message)


def test_a_change_is_found_exactly_nan_positions_dtype_and_shape_included():
    case = {"args": (np.array([[np.nan, 1.0], [2.0, 3.0]]),), "kwargs": {}}

    def moves_nan(S):
        S[0, 0], S[0, 1] = 1.0, np.nan
        return S.copy()

    def reshapes(S):
        S.shape = (4,)
        return 0

    assert outcome_of(moves_nan, case).changed_input
    assert outcome_of(reshapes, case).changed_input
    assert not outcome_of(lambda S: S * 2, case).changed_input


def test_a_keyword_input_is_named_as_one():
    case = {"args": (np.ones(3),), "kwargs": {"context": np.ones(3)}}

    def f(X, context=None):
        context += 1
        return X

    assert "the caller's context (keyword argument)" in outcome_of(f, case).message


def test_the_visible_check_fails_an_answer_that_writes_into_its_input(monkeypatch):
    monkeypatch.setattr(visible_checks, "VISIBLE_CASES", ROOT / "source" / "attention" / "worked_example.npz")
    with pytest.raises(CheckFailed, match=r"changed the caller's S \(argument 1\) in place"):
        check("softmax", _student(IN_PLACE, "softmax"))
    check("softmax", _student(COPY_FIRST, "softmax"))


def test_the_in_cell_hidden_check_fails_an_answer_that_writes_into_its_input():
    from autograder.incell import hidden_check
    with pytest.raises(CheckFailed, match=r"softmax on .*changed the caller's S"):
        hidden_check("softmax", _student(IN_PLACE, "softmax"))
    hidden_check("softmax", _student(COPY_FIRST, "softmax"))


def test_a_changed_input_crosses_the_wire_from_the_grading_child():
    sent = Outcome.changing(np.ones(2), MESSAGE)
    back = outcome_from_wire(outcome_to_wire(sent))
    assert back.changed_input and back.message == MESSAGE and np.array_equal(back.value, np.ones(2))


@cache
def _graded(fixture: Path) -> dict[str, list]:
    """Exercise → the verdicts of its failed cases (visible and hidden) in the grading child."""
    names = ["softmax", "attention", "multi_head_attention", "equal_scores"]
    with tempfile.TemporaryDirectory() as folder:
        make_submission(fixture, Path(folder))
        with Submission(folder) as submission:
            found = {}
            for name in names:
                cases = [c for c in visible_cases() if c["func"] == name] + list(hidden_cases(name))
                verdicts = [diagnose(case_label(name, c), submission.outcome(name, c), c) for c in cases]
                found[name] = [v for v in verdicts if v]
    return found


def test_the_kits_grading_fails_an_answer_that_writes_into_its_input_and_nothing_else():
    assert set(cells_of(IN_PLACE)) == {"softmax"}
    failures = _graded(IN_PLACE)
    assert failures["softmax"] and {v.kind for v in failures["softmax"]} == {"changed input"}
    assert all(MESSAGE in v.message and v.mistake is None for v in failures["softmax"])
    assert {name for name, verdicts in failures.items() if verdicts} == {"softmax"}


def test_the_kits_grading_passes_an_answer_that_copies_first():
    assert {name: v for name, v in _graded(COPY_FIRST).items() if v} == {}
