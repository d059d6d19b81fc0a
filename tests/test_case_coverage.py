"""Do the hidden cases check every behaviour the specification gives a function?

The foundation issue specifies, for the functions of the chapter: float32 in
gives float32 out, any leading batch dimensions, cross-attention shapes, a row
whose every key is forbidden, scores of ±1e4, and a ValueError for bad shapes
and sizes (`autograder.cases.BEHAVIOURS`). `SPECIFIED` says which of them each
exercise can meet; every one must be checked by at least one hidden case of
that exercise, tagged in its `checks` (its case specs in autograder/exercises/). Each tag is also
checked against the case itself, so a tag cannot claim what its case does not do.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.cases import BEHAVIOURS, EXERCISES, hidden_cases
from autograder.judge import fresh_inputs

ARRAYS = {"float32", "batched", "bad shape"}
SCORES = {"cross", "masked row", "1e4"}
COUNTS = {"bad size"}
# Exercise → the behaviours it can meet (an exercise that takes no mask cannot meet a masked row).
SPECIFIED: dict[str, set[str]] = {
    "token_movement": ARRAYS,
    "project_qkv": ARRAYS,
    "raw_scores": ARRAYS | {"cross"},
    "scaled_scores": ARRAYS | {"cross"},
    "score_spread": COUNTS,
    "largest_weight": COUNTS,
    "softmax": {"float32", "batched", "masked row", "1e4"},
    "attention": ARRAYS | SCORES,
    "split_heads": ARRAYS,
    "merge_heads": ARRAYS,
    "multi_head_attention": ARRAYS | SCORES,
    "causal_mask": COUNTS,
    "padding_mask": COUNTS | {"bad shape"},
    "block_mask": COUNTS | {"bad shape"},
    "blockwise_attention": ARRAYS | COUNTS | {"cross", "1e4"},
    "projection_flops": COUNTS,
    "score_flops": COUNTS,
    "attention_share": COUNTS,
    "crossover_length": COUNTS,
    "score_grid_bytes": COUNTS,
    "attention_params": COUNTS | {"bad shape"},
    "equal_scores": {"float32", "batched"},
}


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
    return [a for a in [*args, *kwargs.values()] if isinstance(a, np.ndarray)]


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
    if tag == "batched":
        return max(a.ndim for a in _arrays(case)) >= 3
    if tag == "cross":
        return len({a.shape[-2] for a in _arrays(case) if a.ndim >= 2}) >= 2
    raise AssertionError(f"no way to read {tag!r} from a case")


def _largest_score(case: dict) -> float:
    """The largest scaled score |q·k| / √d_k the case's inputs make (for softmax, its scores)."""
    from solutions import attention as ref
    args, kwargs = fresh_inputs(case)
    if case["func"] == "softmax":
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
