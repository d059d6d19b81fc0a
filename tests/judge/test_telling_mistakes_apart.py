"""Do an exercise's hidden cases tell its catalogued mistakes apart, so that its hidden check names each one?

A check names a mistake only from a case that tells it apart (judge/policy.py: `Naming`): its
output is wrong there and differs from every other catalogued mistake's. A degenerate case
(n = d, n = 4d, a ratio of exactly 1, an answer of 0, a fully masked row) tells nothing, so
each exercise needs hidden cases where its mistakes part ways. Where two do not, add a hidden
case to the exercise's ``*_hidden`` spec (autograder/exercises/) on which they differ.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from autograder.cases import EXERCISES, REGISTRY, hidden_cases
from autograder.judge import check_verdict, differs, outcome_of

WITH_MISTAKES = [name for name in EXERCISES if any(m.variant for m in REGISTRY[name].mistakes)]


def _apart(a, b) -> bool:
    """Do two outputs differ: in shape, or beyond the policy's tolerance (either read as the expected one)?"""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
        return a.shape != b.shape or not np.array_equal(a, b)
    return bool(differs(a, b).any() or differs(b, a).any())


def _outputs(case: dict) -> dict[str, list]:
    """Mistake name → its variants' outputs on the case (a variant that raised there gives none)."""
    found: dict[str, list] = {}
    for name, _, _, output in case.get("variants", ()):
        found.setdefault(name, []).append(output)
    return found


def _parts(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _told_apart(first: list, second: list) -> bool:
    """Does every output of one mistake differ from every output of the other (in some part)?"""
    return all(any(_apart(p, q) for p, q in zip(_parts(a), _parts(b))) or len(_parts(a)) != len(_parts(b))
               for a in first for b in second)


@pytest.mark.parametrize("exercise", WITH_MISTAKES)
def test_some_hidden_case_tells_every_pair_of_an_exercises_mistakes_apart(exercise):
    names = sorted({m.name for m in REGISTRY[exercise].mistakes if m.variant})
    cases = [_outputs(case) for case in hidden_cases(exercise)]
    together = [(a, b) for a, b in combinations(names, 2)
                if not any(a in outputs and b in outputs and _told_apart(outputs[a], outputs[b]) for outputs in cases)]
    assert not together, f"{exercise}: no hidden case gives these mistakes different outputs: {together}"


@pytest.mark.parametrize("exercise", WITH_MISTAKES)
def test_the_hidden_check_names_each_mistake_given_as_the_answer(exercise):
    cases = hidden_cases(exercise)
    labels = [case["label"] for case in cases]
    wrong = {}
    for mistake in (m for m in REGISTRY[exercise].mistakes if m.variant):
        for writing in (mistake.variant, *mistake.also):  # every way it is written is named
            found = check_verdict(cases, labels, lambda case: outcome_of(writing, case), reveal=False)
            if found is None or found.mistake != mistake.name:
                wrong[mistake.name] = found and (found.mistake, found.message)
    assert not wrong, f"{exercise}: the hidden check does not name {wrong}"
