"""Does every exercise fail an answer that writes into the caller's arrays, and only such an answer?

Every exercise's text promises the caller's arrays come back unchanged; the
grader checks it after every call that returns (judge/calling.py `outcome_of`),
in every grading path: the visible check, the in-cell hidden check and the
out-of-process grading child (the outcome crosses the wire as an error).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from autograder.cases import EXERCISES, REGISTRY, hidden_cases, visible_cases
from autograder.judge import diagnose, fresh_inputs, outcome_of
from autograder.submission import Submission
from tests.corpus_submissions import make_submission

FUNCTIONS = [name for name in EXERCISES if callable(REGISTRY[name].reference)]


def _cases_with_arrays(name: str) -> list[dict]:
    cases = [c for c in visible_cases() if c["func"] == name] + list(hidden_cases(name))
    return [c for c in cases if not c.get("raises") and c.get("args") is not None
            and any(isinstance(a, np.ndarray) for a in [*fresh_inputs(c)[0], *fresh_inputs(c)[1].values()])]


def _writing_into_its_input(reference):
    """The reference, then one value of its first array input changed in place."""
    def answer(*args, **kwargs):
        result = reference(*args, **kwargs)
        first = next(a for a in [*args, *kwargs.values()] if isinstance(a, np.ndarray) and a.size)
        corner = (0,) * first.ndim
        first[corner] = not first[corner] if first.dtype.kind == "b" else 2 if first[corner] == 1 else 1
        return result
    answer.__name__ = getattr(reference, "__name__", "answer")
    return answer


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_reference_leaves_its_inputs_unchanged(name):
    for case in _cases_with_arrays(name):
        assert diagnose(name, outcome_of(REGISTRY[name].reference, case), case) is None, case["label"]


@pytest.mark.parametrize("name", [n for n in FUNCTIONS if any(True for _ in _cases_with_arrays(n))])
def test_an_answer_that_writes_into_an_input_fails_with_its_own_message(name):
    answer = _writing_into_its_input(REGISTRY[name].reference)
    for case in _cases_with_arrays(name):
        found = diagnose(name, outcome_of(answer, case), case)
        assert found and found.kind == "changed its input", (case["label"], found)
        assert "in place" in found.message and found.mistake is None


SOFTMAX_IN_PLACE = '''
import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind != "f":
        S = S.astype(np.float64)
    top = S.max(axis=axis, keepdims=True)
    top[np.isneginf(top)] = 0
    S -= top  # in place: the caller's scores change
    np.exp(S, out=S)
    total = S.sum(axis=axis, keepdims=True)
    return np.divide(S, total, out=np.zeros_like(S), where=total > 0)
'''


def test_the_grading_child_fails_an_in_place_softmax_and_nothing_built_on_it():
    with tempfile.TemporaryDirectory() as folder:
        answers = Path(folder) / "answers.py"
        answers.write_text(SOFTMAX_IN_PLACE)
        submission_folder = Path(folder) / "submission"
        submission_folder.mkdir()
        make_submission(answers, submission_folder)
        with Submission(submission_folder) as submission:
            kinds = {name: [found.kind for case in [c for c in visible_cases() if c["func"] == name]
                            + list(hidden_cases(name))
                            if (found := diagnose(name, submission.outcome(name, case), case))]
                     for name in ("softmax", "attention", "lead_share")}
    assert kinds["softmax"] and set(kinds["softmax"]) == {"changed its input"}
    assert kinds["attention"] == [] and kinds["lead_share"] == []
