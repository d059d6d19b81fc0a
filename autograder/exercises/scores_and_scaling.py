"""Notebook 02, scores and scaling: dot-product scores, why Q and K differ, and the √d_k scaling."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import normal_draws, worked
from autograder.exercises.spec import HIDDEN_SEED, Exercise, Mistake, Points, Seed, case
from solutions import attention as ref

NOTEBOOK = "02_scores_and_scaling"


def scores_visible():
    w = worked()
    return [case("the worked example", w.Q, w.K)]


def scores_hidden(rng):
    """raw_scores and scaled_scores, each on its own stream."""
    n = normal_draws(rng)
    return [case("3 queries against 7 keys, d_k = 5", n(3, 5), n(7, 5), checks="cross"),
            case("a batch (2, 3) in float32, d_k = 16", n(2, 3, 4, 16, dtype=np.float32),
                 n(2, 3, 6, 16, dtype=np.float32), checks="batched, float32, cross"),
            case("mismatched d_k", n(3, 5), n(3, 4), raises="ValueError", checks="bad shape")]


def self_preference_visible():
    w = worked()
    return [case("the worked example's tokens against themselves, X Xᵀ", w.X @ w.X.T),
            case("the worked example's queries against its keys, Q Kᵀ", w.Q @ w.K.T)]


def self_preference_hidden(rng):
    n = normal_draws(rng)
    tokens = n(6, 5)
    cases = [case("6 tokens against themselves (symmetric)", tokens @ tokens.T),
             case("7 queries against 7 keys", n(7, 4) @ n(7, 4).T)]
    repeated = tokens[[0, 1, 1, 2, 3]]
    cases.append(case("a token written twice (its two rows tie)", repeated @ repeated.T))
    favours_itself = n(6, 6)
    favours_itself[np.arange(6), np.arange(6)] = favours_itself.max(axis=1) + 0.1
    return cases + [case("6 queries that each score their own key highest (columns need not)", favours_itself),
                    case("one token", n(1, 1)),
                    case("a grid that is not square", n(3, 4), raises="ValueError")]


def _self_preference_with(S, *, by_column=False, strict=False, count=False):
    S = np.asarray(S)
    best = S.max(axis=0 if by_column else 1)
    own = np.diagonal(S)
    wins = own > np.where(np.eye(len(S), dtype=bool), -np.inf, S).max(axis=0 if by_column else 1) if strict \
        else own >= best
    return float(np.abs(S - S.T).max()), float(wins.sum() if count else wins.mean())


def score_spread_visible():
    return [case("head size 4, 2,000 samples", 4, 2000, Seed(4)),
            case("head size 64, 2,000 samples", 64, 2000, Seed(64))]


def score_spread_hidden(rng):
    return [case(f"head size {d_k}, 3,000 samples", d_k, 3000, Seed(HIDDEN_SEED + d_k)) for d_k in (9, 256)] + [
        case("head size 0", 0, 100, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")]


def largest_weight_visible():
    return [case("head size 64, 64 keys, raw", 64, 64, False, 500, Seed(1)),
            case("head size 64, 64 keys, scaled", 64, 64, True, 500, Seed(1))]


def largest_weight_hidden(rng):
    return [case(f"head size {d_k}, 32 keys, {'scaled' if scaled else 'raw'}", d_k, 32, scaled, 200,
                 Seed(HIDDEN_SEED + d_k)) for d_k, scaled in ((16, False), (256, True), (1024, False))] + [
        case("no keys", 16, 0, True, 10, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")]


EXERCISES = (
    Exercise("raw_scores", ref.raw_scores, scores_hidden, scores_visible, stream=2, mistakes=(
        Mistake("keys against queries", 3, "Row i belongs to query i: Q @ K.T, not K @ Q.T.",
                lambda Q, K: np.swapaxes(ref.raw_scores(Q, K), -1, -2)),
        Mistake("already scaled", 3, "raw_scores is the plain dot product; the division by √d_k belongs to scaled_scores.",
                ref.scaled_scores),
    )),
    Exercise("self_preference", ref.self_preference, self_preference_hidden, self_preference_visible, stream=21,
             mistakes=(
        Mistake("columns instead of rows", 2, "Row i holds token i's scores: compare S[i, i] with the largest of row i.",
                lambda S: _self_preference_with(S, by_column=True)),
        Mistake("a tie not counted", 2, "A row whose own score ties the largest still prefers itself: use >=.",
                lambda S: _self_preference_with(S, strict=True)),
        Mistake("a count instead of a fraction", 2, "Divide the number of rows that prefer themselves by n.",
                lambda S: _self_preference_with(S, count=True)),
    )),
    Exercise("scaled_scores", ref.scaled_scores, scores_hidden, scores_visible, stream=3, points=Points(1, 2),
             built_on=("raw_scores",), mistakes=(
        Mistake("no scaling", 3, "Divide every score by √d_k, the square root of the head size.", ref.raw_scores),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k itself.",
                lambda Q, K: ref.raw_scores(Q, K) / np.shape(Q)[-1]),
    )),
    Exercise("score_spread", ref.score_spread, score_spread_hidden, score_spread_visible, stream=4,
             built_on=("raw_scores", "scaled_scores"), mistakes=(
        Mistake("scaled by d_k instead of √d_k", 3, "The scaled spread divides q·k by √d_k.",
                lambda d_k, n, rng: (lambda r: (r[0], r[1] / math.sqrt(d_k)))(ref.score_spread(d_k, n, rng))),
        Mistake("variance instead of standard deviation", 3, "The spread is the standard deviation (np.std), not the variance.",
                lambda d_k, n, rng: tuple(x * x for x in ref.score_spread(d_k, n, rng))),
    )),
    Exercise("largest_weight", ref.largest_weight, largest_weight_hidden, largest_weight_visible, stream=5,
             built_on=("raw_scores", "scaled_scores", "softmax"), mistakes=(
        Mistake("`scaled` ignored", 3, "Divide the scores by √d_k only when scaled is True.",
                lambda d_k, n_keys, scaled, n_trials, rng: ref.largest_weight(d_k, n_keys, not scaled, n_trials, rng)
                if scaled else ref.largest_weight(d_k, n_keys, scaled, n_trials, rng)),
    )),
)
