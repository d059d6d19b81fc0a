"""Notebook 08, check yourself: the chapter's questions, answered by computing where it can."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import f32, normal, normal_draws, worked
from autograder.exercises.spec import Exercise, Mistake, Points, case
from solutions import attention as ref
from solutions.check_yourself import ANSWERS

NOTEBOOK = "08_check_yourself"
QUESTION = Points(check=None, hidden=1)  # a question has no visible check: its answer is graded hidden only


def hull_excess_visible():
    w = worked()
    last_hidden = np.ones((4, 4), dtype=bool)
    last_hidden[:, 3] = False
    O_masked, _ = ref.attention(w.Q, w.K, w.V, np.where(last_hidden, 0.0, -np.inf))
    return [case("the worked example's outputs", w.O, w.V),
            case("the worked example with 'cube' hidden from every query", O_masked, w.V, last_hidden),
            case("the outputs multiplied by W_o (no longer a mix of V)", w.O @ w.W_o, w.V),
            case("unmasked outputs, though 'cube' was hidden (a mask left out)", w.O, w.V, last_hidden)]


def hull_excess_hidden(rng):
    n = normal_draws(rng)
    V = n(6, 3)
    weights = ref.softmax(n(5, 6, scale=2))
    cases = [case("attention outputs on 6 value rows", weights @ V, V)]
    allowed = np.tril(np.ones((6, 6), dtype=bool))
    causal = ref.softmax(n(6, 6, scale=2) + ref.causal_mask(6))
    return cases + [
        case("causal outputs: row i may see value rows 0 … i", causal @ V, V, allowed),
        case("outputs that read rows the mask forbids (unmasked weights, causal allowed)",
             ref.softmax(n(6, 6, scale=2)) @ V, V, allowed),
        case("outputs of weights that do not add up to one", np.exp(n(5, 6)) @ V, V),
        case("outputs with negative weights", (n(5, 6) - 0.5) @ V, V, None),
        case("float32 outputs", (weights @ V).astype(f32), V.astype(f32)),
        case("a query that may see nothing", weights @ V, V, np.zeros((5, 6), dtype=bool), raises="ValueError"),
    ]


def _hull_excess_with(O, V, allowed=None, *, every_row=False, signed=False):
    O, V = np.asarray(O, dtype=np.float64), np.asarray(V, dtype=np.float64)
    if allowed is None or every_row:
        allowed = np.ones((O.shape[0], V.shape[0]), dtype=bool)
    visible = np.asarray(allowed)[:, :, None]
    outside = np.maximum(O - np.where(visible, V[None], -np.inf).max(axis=1),
                         np.where(visible, V[None], np.inf).min(axis=1) - O)
    return outside.max(axis=1) if signed else np.maximum(outside, 0.0).max(axis=1)


def equal_scores_hidden(rng):
    return [case("value rows (5, 3)", normal(rng, (5, 3))),
            case("a batch (2, 4, 6)", normal(rng, (2, 4, 6)), checks="batched"),
            case("value rows (4, 3) in float32", normal(rng, (4, 3), np.float32), checks="float32")]


def leaked_targets_visible():
    return [case("the causal mask of 4 tokens", ref.causal_mask(4)),
            case("no mask on 4 tokens", np.zeros((4, 4)))]


def leaked_targets_hidden(rng):
    group_mask = ref.block_mask(np.array([2, 3, 1]), np.array([[True, True, False], [True, True, False],
                                                               [True, True, True]]))
    return [case("the causal mask of 9 tokens", ref.causal_mask(9)),
            case("no mask on 7 tokens", np.zeros((7, 7))),
            case("a mask that lets each token see one token ahead", np.triu(np.full((6, 6), -np.inf), k=2)),
            case("a causal mask that also forbids the token itself", np.triu(np.full((6, 6), -np.inf), k=0)),
            case("a causal mask written the wrong way round", ref.causal_mask(6).T.copy()),
            case("a group mask of 6 tokens (two groups see each other)", group_mask),
            case("a mask that is not square", np.zeros((3, 4)), raises="ValueError")]


def score_variance_visible():
    rng = np.random.default_rng(12)
    pairs = {d_k: (rng.standard_normal((400, d_k)), rng.standard_normal((400, d_k))) for d_k in (4, 64)}
    return [case("400 pairs at head size 4", *pairs[4]),
            case("400 pairs at head size 64", *pairs[64])]


def score_variance_hidden(rng):
    n = normal_draws(rng)
    return [case(f"300 pairs at head size {d_k}", n(300, d_k), n(300, d_k)) for d_k in (16, 256)] + [
        case("Q and K of different shapes", n(5, 4), n(5, 3), raises="ValueError")]


def answer_hidden(rng):
    """A question answered by a value: its one case is the answer itself."""
    return [case("your answer")]


def _question(name: str) -> Exercise:
    return Exercise(name, ANSWERS[name], answer_hidden, points=QUESTION)


EXERCISES = (
    Exercise("hull_excess", ref.hull_excess, hull_excess_hidden, hull_excess_visible, stream=29, mistakes=(
        Mistake("every value row counted, masked ones too", 4,
                "Only the value rows a query may see (allowed[i]) bound its output.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, every_row=True)),
        Mistake("signed distance", 4, "Inside the box the excess is 0.0, not negative: clip at zero.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, signed=True)),
    )),
    Exercise("equal_scores", ANSWERS["equal_scores"], equal_scores_hidden, stream=99, points=QUESTION),
    Exercise("leaked_targets", ref.leaked_targets, leaked_targets_hidden, leaked_targets_visible, stream=30, mistakes=(
        Mistake("the token itself instead of the next", 6,
                "Position i is trained to predict token i + 1: look at mask[i, i + 1].",
                lambda mask: int(np.isfinite(np.diagonal(np.asarray(mask, dtype=float))).sum())),
        Mistake("every later token counted", 6, "Count positions, one per i, whose next token i + 1 is allowed.",
                lambda mask: int(np.isfinite(np.triu(np.asarray(mask, dtype=float), k=1)
                                             + np.tril(np.full(np.shape(mask), -np.inf))).sum())),
    )),
    _question("head_size_4096"),
    _question("params_4096"),
    _question("skip_formula"),
    Exercise("score_variance", ref.score_variance, score_variance_hidden, score_variance_visible, stream=31, mistakes=(
        Mistake("standard deviation instead of variance", 3, "Return the variance (np.var), not the spread (np.std).",
                lambda Q, K: tuple(math.sqrt(v) for v in ref.score_variance(Q, K))),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide the scores by √d_k before taking the variance.",
                lambda Q, K: (lambda r: (r[0], r[0] / np.shape(Q)[-1] ** 2))(ref.score_variance(Q, K))),
    )),
    _question("skip_causal"),
    _question("skip_heads"),
)
