"""Do the hidden cases check every behaviour the specification and the notebooks' text give a function?

Every exercise declares the behaviours its text states (`Requirement`s in its
registry entry, autograder/exercises/), each with the text's own words and a
wrong answer that breaks it. Read against the notebooks (tests/exercise_text.py):
every sentence of an exercise's part of the text that states a behaviour is one
of its requirements, and each requirement is in the text; some hidden case fails
each requirement's wrong answer, and so does a visible case (the check under the
exercise is as strong as its text) unless the requirement says why none can.
`requirement_map` is the map from the text to the cases.

The generic behaviours:

The foundation issue specifies, for the functions of the chapter: float32 in
gives float32 out, any leading batch dimensions, cross-attention shapes, a row
whose every key is forbidden, scores of ±1e4, and a ValueError for bad shapes
and sizes (`autograder.cases.BEHAVIOURS`). Each exercise's `meets` says which of them it
can meet; every one must be checked by at least one hidden case of
that exercise, tagged in its `checks` (its case specs in autograder/exercises/). Each tag is also
checked against the case itself, so a tag cannot claim what its case does not do.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.cases import BEHAVIOURS, EXERCISES, REGISTRY, hidden_cases, visible_cases
from autograder.exercises.spec import no_cases
from autograder.judge import fresh_inputs, outcome_of, verdict
from tests.exercise_text import behaviour_sentences, exercise_text, flat, introduction, notebook_text

# Exercise → the behaviours it can meet, as its registry entry declares them (Exercise.meets).
SPECIFIED: dict[str, set[str]] = {name: set(e.meets) for name, e in REGISTRY.items() if e.meets}


def behaviour_map() -> dict[str, dict[str, list[str]]]:
    """Exercise → behaviour → the labels of the hidden cases that check it."""
    found: dict[str, dict[str, list[str]]] = {}
    for exercise in SPECIFIED:
        for case in hidden_cases(exercise):
            for tag in case.get("checks", ()):
                found.setdefault(exercise, {}).setdefault(tag, []).append(case["label"])
    return found


def _arrays(case: dict) -> list[np.ndarray]:
    args, kwargs = fresh_inputs(case)
    return [np.asarray(a) for a in [*args, *kwargs.values()] if isinstance(a, (np.ndarray, np.generic))]


def _holds(tag: str, case: dict) -> bool:
    """Does the case do what its tag claims (where that can be read from the case)?"""
    if tag in ("bad shape", "bad size"):
        return case.get("raises") == "ValueError"
    if case.get("raises"):
        return False
    if tag == "float32":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return any(a.dtype == np.float32 for a in _arrays(case)) and all(o.dtype == np.float32 for o in outputs)
    if tag == "masked row":
        return any(a.ndim >= 2 and np.isneginf(a).all(axis=-1).any() for a in _arrays(case))
    if tag == "1e4":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return all(np.isfinite(o).all() for o in outputs) and _largest_score(case) >= 5e3
    if tag == "integers":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return any(a.dtype.kind in "iu" for a in _arrays(case)) and \
            all(np.asarray(o).dtype == np.float64 for o in outputs if np.asarray(o).dtype.kind == "f")
    if tag == "batched":
        return max(a.ndim for a in _arrays(case)) >= 3
    if tag == "cross":
        return len({a.shape[-2] for a in _arrays(case) if a.ndim >= 2}) >= 2
    raise AssertionError(f"no way to read {tag!r} from a case")


def _largest_score(case: dict) -> float:
    """The largest scaled score |q·k| / √d_k the case's inputs make (for softmax, its scores)."""
    from solutions import attention as ref
    args, kwargs = fresh_inputs(case)
    if case["func"] in ("softmax", "softmax_jacobian"):
        return float(np.abs(args[0][np.isfinite(args[0])]).max())
    if case["func"] == "multi_head_attention":
        X, W_q, W_k, _, _, n_heads = args[:6]
        Q, K = ref.split_heads(X @ W_q, n_heads), ref.split_heads(kwargs.get("context", X) @ W_k, n_heads)
    else:
        Q, K = args[0], args[1]
    return float(np.abs(ref.scaled_scores(Q, K)).max())


def test_every_specified_behaviour_is_a_known_one():
    assert set().union(*SPECIFIED.values()) <= set(BEHAVIOURS)
    assert set(SPECIFIED) <= set(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(SPECIFIED))
def test_every_behaviour_an_exercise_can_meet_is_checked_by_a_hidden_case(exercise):
    checked = behaviour_map().get(exercise, {})
    missing = SPECIFIED[exercise] - set(checked)
    assert not missing, f"no hidden case of {exercise} checks {sorted(missing)}"


@pytest.mark.parametrize("exercise", sorted(SPECIFIED))
def test_a_case_does_what_its_checks_say(exercise):
    wrong = [(case["label"], tag) for case in hidden_cases(exercise) for tag in case.get("checks", ())
             if not _holds(tag, case)]
    assert not wrong


# Notebook 01's introduction states the comparison policy, which the judge applies to every case (tests/test_judge.py).
POLICY_NOTEBOOK = "01_worked_example"
NOTEBOOKS = sorted({e.notebook for e in REGISTRY.values()})


def _breaker(exercise, requirement):
    """The answer that breaks `requirement`: its own, or the catalogued mistake it names."""
    if isinstance(requirement.broken_by, str) and callable(exercise.reference):
        variants = {m.name: m.variant for m in exercise.mistakes}
        if requirement.broken_by not in variants:
            raise AssertionError(f"{exercise.name}: no catalogued mistake {requirement.broken_by!r}")
        return variants[requirement.broken_by]
    return requirement.broken_by


def failed_by(answer, cases) -> list[str]:
    """The labels of the cases `answer` fails."""
    with np.errstate(all="ignore"):
        return [case["label"] for case in cases if verdict(case["label"], outcome_of(answer, case), case)]


def failing_cases(exercise, requirement, cases) -> list[str]:
    """The labels of the cases that fail the requirement's wrong answer."""
    return failed_by(_breaker(exercise, requirement), cases)


def requirement_map() -> dict[str, dict[str, list[str]]]:
    """Exercise → the words of each requirement → the hidden cases that check it."""
    return {name: {r.says: failing_cases(e, r, hidden_cases(name)) for r in e.requirements}
            for name, e in REGISTRY.items()}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_requirement_is_in_its_notebooks_text(exercise):
    e = REGISTRY[exercise]
    assert not [r.says for r in e.requirements if flat(r.says) not in notebook_text(e.notebook)]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_sentence_of_an_exercise_that_states_a_behaviour_is_a_requirement(exercise):
    e = REGISTRY[exercise]
    said = [flat(r.says) for r in e.requirements]
    unclaimed = [s for s in behaviour_sentences(exercise_text(e.notebook, exercise)) if not any(w in s for w in said)]
    assert not unclaimed, f"{exercise}: sentences that state a behaviour but are no Requirement: {unclaimed}"


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n != POLICY_NOTEBOOK])
def test_every_rule_a_notebooks_introduction_states_is_a_requirement_of_its_exercises(notebook):
    said = [flat(r.says) for e in REGISTRY.values() if e.notebook == notebook for r in e.requirements]
    unclaimed = [s for s in behaviour_sentences(introduction(notebook)) if not any(w in s for w in said)]
    assert not unclaimed, f"{notebook}: rules of its introduction no exercise declares: {unclaimed}"


@pytest.mark.parametrize("exercise", EXERCISES)
def test_some_hidden_case_fails_the_answer_that_breaks_each_requirement(exercise):
    e = REGISTRY[exercise]
    unchecked = [r.says for r in e.requirements if not failing_cases(e, r, hidden_cases(exercise))]
    assert not unchecked, f"{exercise}: no hidden case checks {unchecked}"


# An exercise with a visible check: its own check cell, or visible cases checked in its graded cell (equal_scores).
@pytest.mark.parametrize("exercise", [name for name, e in REGISTRY.items()
                                      if e.points.check is not None or e.visible is not no_cases])
def test_the_visible_check_fails_the_answer_that_breaks_each_requirement_it_can_see(exercise):
    e = REGISTRY[exercise]
    visible = [c for c in visible_cases() if c["func"] == exercise]
    unchecked = [r.says for r in e.requirements if not r.unseen and not failing_cases(e, r, visible)]
    assert not unchecked, f"{exercise}: the visible check passes an answer that breaks {unchecked}"


# The other direction: every hidden case's rule is stated, in its exercise's text (a Requirement whose wrong
# answer the case fails) or in notebook 01's general rules. A case that checks the main computation on other
# shapes ("cross", "batched") needs neither; one that must raise, or checks an edge, does.
GENERAL_RULES = {"bad size": "A **count or size you are given**", "float32": "float32 in gives float32 out",
                 "integers": "**Integers** given where numbers are computed"}
# Hidden cases whose rule no requirement claims yet (issue 37): each needs its sentence and its Requirement.
# This list may only shrink.
UNCLAIMED = {
    "token_movement": {"shapes that differ"}, "project_qkv": {"a W_q that does not fit X"},
    "raw_scores": {"mismatched d_k"}, "self_preference": {"a grid that is not square"},
    "scaled_scores": {"mismatched d_k"}, "attention": {"scores near ±1e4"},
    "permutation_gaps": {"a shuffle of 4 positions for 5 tokens"}, "reach": {"one row of 6 weights"},
    "multi_head_attention": {"scores near ±1e4, 2 heads", "width 10 in 4 heads"},
    "head_patterns": {"W_q and W_k of different widths", "W_q that does not fit X"},
    "head_score_ranks": {"W_q and W_k of different widths"}, "block_mask": {"group sizes as a (2, 1) column"},
    "crossover_length": {"a 1-D W_q and W_k"}, "leaked_targets": {"a mask of 6 × 6 for 5 tokens"},
    "gradient_size": {"Q of head size 4 against keys of head size 3"}, "prefix_gaps": {"values of 4 tokens for 5"},
}


def test_the_general_rules_hidden_cases_rely_on_are_stated_in_notebook_01():
    assert all(flat(words) in notebook_text(POLICY_NOTEBOOK) or words.lower() in notebook_text(POLICY_NOTEBOOK).lower()
               for words in GENERAL_RULES.values())


def unclaimed(exercise: str) -> set[str]:
    """The labels of `exercise`'s hidden cases that must raise or check an edge, and whose rule is stated nowhere."""
    e, cases = REGISTRY[exercise], hidden_cases(exercise)
    claimed = {label for r in e.requirements for label in failing_cases(e, r, cases)}
    return {c["label"] for c in cases if (c.get("raises") or set(c.get("checks", ())) - {"cross", "batched"})
            and c["label"] not in claimed and not set(c.get("checks", ())) & set(GENERAL_RULES)}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_hidden_case_checks_a_rule_its_text_or_notebook_01_states(exercise):
    assert unclaimed(exercise) == UNCLAIMED.get(exercise, set())
