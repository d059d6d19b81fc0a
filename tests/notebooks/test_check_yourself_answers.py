"""Notebook 08's rewritten choice questions (8.6, 8.8, 8.9), each option's claim computed with the reference.

Every option of these questions states something that can be measured. Each test below turns the
options into predicates on arrays built with ``solutions/attention.py`` and checks that exactly one
holds, that it is the letter of the answer key, and that the notebook offers exactly those letters.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from autograder.judge.verdicts import answer_as_given
from solutions import attention as ref
from solutions.check_yourself import ANSWERS

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "attention" / "08_check_yourself.py"
README = Path(__file__).resolve().parents[2] / "README.md"


def offered_letters(question: str) -> list[str]:
    """The option letters printed under "### Question <question>" in notebook 08's source."""
    text = NOTEBOOK.read_text(encoding="utf-8")
    start = text.index(f"# ### Question {question}:")
    end = text.index("# %%", start)
    return re.findall(r"^# \* \*\*([a-z])\.\*\*", text[start:end], flags=re.M)


def the_true_one(claims: dict[str, bool]) -> str:
    true = [letter for letter, holds in claims.items() if holds]
    assert len(true) == 1, f"exactly one option must hold, these do: {true or 'none'}"
    return true[0]


def _draws(seed: int, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


# ------------------------------------------------------------ 8.6: softmax(Q Kᵀ) V / 8 at d = 64


def formula_claims(seed: int) -> dict[str, bool]:
    Q, K, V = _draws(seed, (6, 64), (6, 64), (6, 5))
    right, right_weights = ref.attention(Q, K, V)
    wrong_weights = ref.softmax(ref.raw_scores(Q, K))
    wrong = wrong_weights @ V / math.sqrt(64)
    peaked = bool((wrong_weights.max(axis=-1) >= right_weights.max(axis=-1)).all()
                  and wrong_weights.max(axis=-1).mean() > right_weights.max(axis=-1).mean() + 0.05)
    return {
        "a": bool(np.allclose(wrong, right)),
        "b": bool(np.allclose(wrong_weights, right_weights) and np.allclose(8 * wrong, right)),
        "c": peaked and bool(np.allclose(8 * wrong, wrong_weights @ V)) and not np.allclose(wrong, right),
        "d": bool(wrong_weights.max(axis=-1).mean() < right_weights.max(axis=-1).mean()),
    }


@pytest.mark.parametrize("seed", range(5))
def test_exactly_one_option_of_8_6_describes_the_misplaced_division(seed):
    assert offered_letters("8.6") == list("abcd")
    assert the_true_one(formula_claims(seed)) == ANSWERS["skip_formula"]


# ------------------------------------------------------------ 8.8: the causal mask of 4 tokens


def causal_claims() -> dict[str, bool]:
    mask = ref.causal_mask(4)
    forbidden = {(int(i), int(j)) for i, j in zip(*np.nonzero(np.isneginf(mask)))}

    def reads(i: int) -> set[int]:
        return {int(j) for j in np.flatnonzero(np.isfinite(mask[i]))}

    return {
        "a": forbidden == {(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)} and reads(2) == {2, 3},
        "b": forbidden == {(0, 3), (1, 3), (2, 3)} and reads(2) == {0, 1, 2} and reads(3) == {0, 1, 2, 3},
        "c": forbidden == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)} and reads(2) == {0, 1, 2},
        "d": forbidden == {(i, j) for i in range(4) for j in range(4) if j >= i}
             and reads(2) == {0, 1} and reads(0) == set(),
    }


def test_exactly_one_option_of_8_8_is_the_causal_mask_of_four_tokens():
    assert offered_letters("8.8") == list("abcd")
    assert the_true_one(causal_claims()) == ANSWERS["skip_causal"]


def test_the_wrong_options_of_8_8_are_real_masks_a_student_could_build():
    """Each wrong option is the mask of a named mistake, so the claims are not made up."""
    n = 4
    mirror = ref.causal_mask(n).T
    last_hidden = np.zeros((n, n))
    last_hidden[:n - 1, n - 1] = -np.inf  # every query but the last kept from the last token
    diagonal_too = np.triu(np.full((n, n), -np.inf), k=0)
    assert {(int(i), int(j)) for i, j in zip(*np.nonzero(np.isneginf(mirror)))} == \
        {(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)}
    assert {(int(i), int(j)) for i, j in zip(*np.nonzero(np.isneginf(last_hidden)))} == {(0, 3), (1, 3), (2, 3)}
    assert np.isneginf(diagonal_too).sum() == 10


# ------------------------------------------------------------ 8.9: 8 heads of 64 instead of one of 512


def heads_claims(seed: int) -> dict[str, bool]:
    n, d, h = 10, 512, 8
    X, W_q, W_k, W_v, W_o = _draws(seed, (n, d), (d, d), (d, d), (d, d), (d, d))
    W_q, W_k, W_v, W_o = (W / math.sqrt(d) for W in (W_q, W_k, W_v, W_o))
    assert ref.attention_params(W_q, W_k, W_v, W_o, h).sum() == ref.attention_params(W_q, W_k, W_v, W_o, 1).sum() \
        == 4 * d * d  # both sides of the question
    Q, K, V = ref.project_qkv(X, W_q, W_k, W_v)
    Qh, Kh, Vh = (ref.split_heads(M, h) for M in (Q, K, V))
    one_out = ref.multi_head_attention(X, W_q, W_k, W_v, W_o, 1)
    eight_out = ref.multi_head_attention(X, W_q, W_k, W_v, W_o, h)
    _, one_weights = ref.attention(Q, K, V)
    _, head_weights = ref.attention(Qh, Kh, Vh)
    raw_add_up = np.allclose(ref.raw_scores(Qh, Kh).sum(axis=0), ref.raw_scores(Q, K))
    head_spread, one_spread = ref.scaled_scores(Qh, Kh).std(), ref.scaled_scores(Q, K).std()
    head_top, one_top = head_weights.max(axis=-1).mean(), one_weights.max(axis=-1).mean()
    different_patterns = all(not np.allclose(head_weights[a], head_weights[b])
                             for a in range(h) for b in range(a + 1, h))
    return {
        "a": bool(raw_add_up and np.allclose(eight_out, one_out)),
        "b": bool(head_spread > 1.5 * one_spread and head_top > one_top + 0.05),
        "c": head_weights.shape == (h, n // h, n // h),
        "d": head_weights.shape == (h, n, n) and one_weights.shape == (n, n) and different_patterns,
    }


@pytest.mark.parametrize("seed", range(3))
def test_exactly_one_option_of_8_9_is_what_eight_heads_of_the_same_weights_buy(seed):
    assert offered_letters("8.9") == list("abcd")
    assert the_true_one(heads_claims(seed)) == ANSWERS["skip_heads"]


def test_every_option_of_8_9_keeps_the_four_d_squared_weights():
    """The question's premise: however the layer is split into heads, the weights are 4·d²."""
    square = [np.zeros((512, 512))] * 4  # only their shapes are counted
    assert {int(ref.attention_params(*square, h).sum()) for h in (1, 2, 4, 8, 16, 64, 512)} == {4 * 512**2}


def test_what_the_readme_says_of_a_count_is_what_the_grader_does_with_it():
    """README's sentences on counts quote numbers: one after "never", or before "refused", in its clause is
    refused by the grader's reading of a count (notebook 01's rule, which notebook 08 follows), any other
    accepted (`128`, never `128.0`)."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    number = r"`(-?\d[\d.e+]*)`"
    clauses = [c for s in re.split(r"(?<=[.)])\s+(?=[A-Z])", text) if "count" in s for c in s.split(";")
               if re.search(number, c)]
    assert clauses, "README says nothing of how a count is read"
    for clause in clauses:
        for found in re.finditer(number, clause):
            literal = found[1]
            refused = "never" in clause[:found.start()] or "refused" in clause[found.end():]
            value = float(literal) if any(c in literal for c in ".e") else int(literal)
            assert (type(answer_as_given(value, "count")) is int) is not refused, (literal, clause)
