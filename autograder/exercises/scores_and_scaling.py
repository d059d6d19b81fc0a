"""Notebook 02, scores and scaling: dot-product scores, why Q and K differ, and the √d_k scaling."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import normal_draws, worked
from autograder.exercises.spec import (ARRAYS, COUNTS, HIDDEN_SEED, Exercise, Mistake, Points, Requirement, Seed,
                                       case, count_edges, dimension_edges, in_integers, one_sequence_only,
                                       past_float32, small_unsigned)
from autograder.exercises.variants import as_computed
from solutions import attention as ref

NOTEBOOK = "02_scores_and_scaling"


SMALL_INTEGERS = (np.array([[1, 0], [0, 2], [3, 1]]), np.array([[1, 1], [2, 0]]))  # 3 queries, 2 keys


def scores_visible():
    w = worked()
    batch = (np.stack([w.Q, w.Q[::-1]]).astype(np.float32), np.stack([w.K, w.K[::-1]]).astype(np.float32))
    return [case("the worked example", w.Q, w.K),
            case("the worked example twice, as a float32 batch of 2", *batch),
            case("3 integer queries against 2 integer keys", *SMALL_INTEGERS),
            case("every size different: 3 queries against 5 keys, d_k = 2", w.Q[:3, :2],
                 np.vstack([w.K, w.K[:1] + 1])[:, :2]),
            case("one query given as a 1-D vector", w.Q[0], w.K, raises="ValueError")]


def scores_hidden(rng):
    """raw_scores and scaled_scores, each on its own stream."""
    n = normal_draws(rng)
    return [case("3 queries against 7 keys, d_k = 5", n(3, 5), n(7, 5), checks="cross"),
            case("a batch (2, 3) in float32, d_k = 16", n(2, 3, 4, 16, dtype=np.float32),
                 n(2, 3, 6, 16, dtype=np.float32), checks="batched, float32, cross"),
            case("integer queries and keys", rng.integers(-3, 4, (4, 3)), rng.integers(-3, 4, (5, 3)), checks="cross"),
            case("mismatched d_k", n(3, 5), n(3, 4), raises="ValueError", checks="bad shape"),
            case("a 1-D query", n(5), n(3, 5), raises="ValueError", checks="bad shape"),
            case("sizes past 256: 2 queries against 3 keys, d_k = 300", n(2, 300), n(3, 300), checks="cross")] + \
        dimension_edges((n(3, 5), n(4, 5)), {1: "K"})


def _scores_unbatched(Q, K):
    """Q Kᵀ with `.T`, which reverses every axis of a batch, not just the last two."""
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    return Q @ K.T


def _scores_unchecked(Q, K):
    """Q Kᵀ that lets NumPy's matmul take a 1-D query."""
    return np.asarray(Q, dtype=float) @ np.swapaxes(np.asarray(K, dtype=float), -1, -2)


def _scores_in_float64(Q, K):
    return ref.raw_scores(Q, K).astype(np.float64)


def _scores_in_input_dtype(Q, K):
    """Q Kᵀ computed in the inputs' own dtype: integers stay integers."""
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} do not fit")
    return Q @ np.swapaxes(K, -1, -2)


def _scaled(raw):
    """The scaled scores of a raw_scores written `raw`."""
    return lambda Q, K: raw(Q, K) / math.sqrt(np.shape(Q)[-1])


SCORE_REQUIREMENTS = (
    Requirement("float32 input gives float32 output", _scores_in_float64),
    Requirement("integer input is computed in float64", _scores_in_input_dtype),
)


def self_preference_visible():
    w = worked()
    repeated = w.X[[0, 0, 1, 2]]  # the first token written twice: rows 0 and 1 tie
    return [case("the worked example's tokens against themselves, X Xᵀ", w.X @ w.X.T),
            case("the worked example's queries against its keys, Q Kᵀ", w.Q @ w.K.T),
            case("the first token written twice (rows 0 and 1 tie)", repeated @ repeated.T),
            case("a grid of one row and 4 columns", w.Q[:1] @ w.K.T, raises="ValueError"),
            case("an empty grid", np.zeros((0, 0)), raises="ValueError")]


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
                    case("a grid that is not square", n(3, 4), raises="ValueError", checks="bad shape"),
                    case("a grid of one row and 4 columns", n(1, 4), raises="ValueError", checks="bad shape"),
                    case("a 3 × 3 × 3 cube", n(3, 3, 3), raises="ValueError", checks="bad shape"),
                    case("an empty grid", n(0, 0), raises="ValueError"),
                    case("a grid of 4 rows and one column", n(4, 1), raises="ValueError", checks="bad shape"),
                    case("300 tokens", n(300, 300)),
                    in_integers(case("7 queries against 7 keys", n(7, 4) @ n(7, 4).T)),
                    case("integer scores past 2²⁵, where float32 holds every fourth only", past_float32(n(6, 6)),
                         checks="integers"),
                    case("a symmetric grid of 8-bit unsigned integers of 0 to 2 (nothing wraps round)",
                         small_unsigned(5, 5) + small_unsigned(5, 5).T, checks="integers"),
                    # S − Sᵀ computed in uint8 wraps round where S[i, j] < S[j, i] (3 − 5 is 254)
                    in_integers(case("a 7 × 7 grid that is not symmetric", n(7, 7)), np.uint8)]


def _self_preference_unchecked(S):
    """self_preference that lets NumPy broadcast S − Sᵀ for any shape."""
    S = np.asarray(S, dtype=float)
    return float(np.abs(S - S.T).max()), float((np.diagonal(S) >= S.max(axis=-1)[:len(np.diagonal(S))]).mean())


def _self_preference_of_nothing(S):
    """self_preference that answers an empty grid with zeros instead of refusing it."""
    S = np.asarray(S, dtype=float)
    return (0.0, 0.0) if S.size == 0 else ref.self_preference(S)


def _asymmetry_of_differing_pairs(S):
    """The asymmetry taken over the pairs that differ only: nothing to take when S is symmetric."""
    S = np.asarray(S, dtype=float)
    D = np.abs(S - S.T)
    return float(D[D != 0].max()), ref.self_preference(S)[1]


def _self_preference_with(S, *, by_column=False, strict=False, count=False):
    S = as_computed(S)
    best = S.max(axis=0 if by_column else 1)
    own = np.diagonal(S)
    wins = own > np.where(np.eye(len(S), dtype=bool), -np.inf, S).max(axis=0 if by_column else 1) if strict \
        else own >= best
    return float(np.abs(S - S.T).max()), float(wins.sum() if count else wins.mean())


def score_spread_visible():
    return [case("head size 4, 2,000 samples", 4, 2000, Seed(4)),
            case("head size 64, 2,000 samples", 64, 2000, Seed(64)),
            case("head size 0", 0, 100, Seed(4), raises="ValueError"),
            case("no samples", 4, 0, Seed(4), raises="ValueError")]


def score_spread_hidden(rng):
    return [case(f"head size {d_k}, {samples:,} samples", d_k, samples, Seed(HIDDEN_SEED + d_k))
            for d_k, samples in ((9, 3000), (256, 1000))] + [
        case("head size 0", 0, 100, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size"),
        case("no samples", 16, 0, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")] + \
        count_edges((16, 100, Seed(HIDDEN_SEED)), {0: "d_k", 1: "n_samples"})


def _spread_with(d_k, n_samples, rng, *, ddof=0, transposed=False):
    """score_spread, with another ddof, or each draw made (d_k, n_samples) and turned."""
    if d_k < 1 or n_samples < 1:
        raise ValueError("d_k and n_samples must be at least 1")
    draw = (lambda: rng.standard_normal((d_k, n_samples)).T) if transposed else \
        (lambda: rng.standard_normal((n_samples, d_k)))
    q, k = draw(), draw()
    dots = (q * k).sum(axis=1)
    return float(dots.std(ddof=ddof)), float((dots / math.sqrt(d_k)).std(ddof=ddof))


def _spread_unchecked(d_k, n_samples, rng):
    q, k = rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / math.sqrt(d_k)).std()) if d_k else math.nan


def largest_weight_visible():
    return [case("head size 64, 64 keys, raw", 64, 64, False, 500, Seed(1)),
            case("head size 64, 64 keys, scaled", 64, 64, True, 500, Seed(1)),
            case("head size 64, 16 keys, scaled", 64, 16, True, 500, Seed(1)),
            case("no keys", 64, 0, True, 10, Seed(1), raises="ValueError"),
            case("head size 0", 0, 8, True, 10, Seed(1), raises="ValueError"),
            case("no trials", 64, 8, True, 0, Seed(1), raises="ValueError")]


def largest_weight_hidden(rng):
    # Head size 1024 (past CPython's small integers) in 40 trials: its keys alone are 40 × 32 × 1024 draws.
    return [case(f"head size {d_k}, 32 keys, {'scaled' if scaled else 'raw'}", d_k, 32, scaled, trials,
                 Seed(HIDDEN_SEED + d_k)) for d_k, scaled, trials in ((16, False, 200), (256, True, 200),
                                                                      (1024, False, 40))] + [
        case("no keys", 16, 0, True, 10, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size"),
        case("head size 0", 0, 32, False, 10, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size"),
        case("no trials", 16, 32, True, 0, Seed(HIDDEN_SEED), raises="ValueError", checks="bad size")] + \
        count_edges((16, 32, True, 20, Seed(HIDDEN_SEED)), {0: "d_k", 1: "n_keys", 3: "n_trials"})


def _largest_weights(d_k, n_keys, scaled, n_trials, rng, *, keys_first=False):
    """Each trial's largest weight (drawing the keys first when `keys_first`)."""
    if keys_first:
        k = rng.standard_normal((n_trials, n_keys, d_k))
        q = rng.standard_normal((n_trials, d_k))
    else:
        q = rng.standard_normal((n_trials, d_k))
        k = rng.standard_normal((n_trials, n_keys, d_k))
    s = np.einsum("td,tkd->tk", q, k) / (math.sqrt(d_k) if scaled else 1.0)
    return 1.0 / np.exp(s - s.max(axis=-1, keepdims=True)).sum(axis=-1)


def _largest_weight_unchecked(d_k, n_keys, scaled, n_trials, rng):
    return float(_largest_weights(d_k, n_keys, scaled, n_trials, rng).mean())


def softmax_jacobian_visible():
    w = worked()
    cube = ref.scaled_scores(w.Q, w.K)[3]
    return [case("the scores of 'cube' against the four tokens", cube),
            case("all four queries of the worked example, as a float32 batch", ref.scaled_scores(w.Q, w.K).astype(np.float32)),
            case("integer scores 1, 0, 2", np.array([1, 0, 2])),
            case("2 queries against 3 keys: rows of 3 scores", ref.scaled_scores(w.Q[2:], w.K[:3])),
            case("a single score, not a row", np.float64(1.5), raises="ValueError")]


def softmax_jacobian_hidden(rng):
    n = normal_draws(rng)
    saturated = n(3, 6, scale=4000.0)
    return [case("3 queries against 6 keys", n(3, 6)),
            case("a batch (2, 3) of 5 keys in float32", n(2, 3, 5, dtype=np.float32), checks="batched, float32"),
            case("integer scores", rng.integers(-4, 5, (4, 3))),
            case("scores near ±1e4: almost one-hot weights", saturated, checks="1e4"),
            case("a row whose every key is forbidden, beside a row with one", np.array(
                [[-np.inf, -np.inf, -np.inf], [0.5, -np.inf, 1.0]]), checks="masked row"),
            case("one key", n(4, 1)),
            case("one query's scores, a 1-D row of 5", n(5)),
            case("a single score", np.float64(0.3), raises="ValueError", checks="bad shape")]


def _jacobian_parts(s, *, stable=True, guarded=False):
    """(p, diag(p), p pᵀ) of the softmax of s along its last axis (`guarded`: an all −inf row's p is 0, not NaN)."""
    s = np.asarray(s)
    s = s if s.dtype.kind == "f" else s.astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True)) if stable else np.exp(s)
        total = e.sum(axis=-1, keepdims=True)
        p = np.divide(e, total, out=np.zeros_like(e), where=total > 0) if guarded else e / total
    return p, p[..., :, None] * np.eye(s.shape[-1], dtype=p.dtype), p[..., :, None] * p[..., None, :]


def _jacobian_unguarded(s):
    """diag(p) − p pᵀ of a softmax that subtracts the row maximum but leaves an all −inf row NaN."""
    s = np.asarray(s)
    s = s if s.dtype.kind == "f" else s.astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
    return p[..., :, None] * np.eye(s.shape[-1], dtype=p.dtype) - p[..., :, None] * p[..., None, :]


def _jacobian_of_one_row(s):
    """diag(p) − p pᵀ with np.diag and np.outer, which read a batch as one flat row."""
    p, _, _ = _jacobian_parts(s)
    return np.diag(p) - np.outer(p, p)


def _jacobian_in_float64(s):
    _, diagonal, outer = _jacobian_parts(np.asarray(s, dtype=np.float64))
    return diagonal - outer


def _jacobian_of_integers_in_float32(s):
    s = np.asarray(s)
    _, diagonal, outer = _jacobian_parts(s.astype(np.float32) if s.dtype.kind in "iu" else s)
    return diagonal - outer


def _jacobian_of_a_number(s):
    """A single number taken as one key: a 1 × 1 grid of 0 instead of a ValueError."""
    _, diagonal, outer = _jacobian_parts(np.atleast_1d(s))
    return diagonal - outer


EXERCISES = (
    Exercise("raw_scores", ref.raw_scores, scores_hidden, scores_visible, stream=2,
             meets=ARRAYS | frozenset({"cross"}), mistakes=(
        Mistake("keys against queries", 3, "Row i belongs to query i: Q @ K.T, not K @ Q.T.",
                lambda Q, K: np.swapaxes(ref.raw_scores(Q, K), -1, -2)),
        Mistake("already scaled", 3, "raw_scores is the plain dot product; the division by √d_k belongs to scaled_scores.",
                ref.scaled_scores),
    ), requirements=SCORE_REQUIREMENTS + (
        Requirement("`Q` is `(..., n_q, d_k)`", one_sequence_only(ref.raw_scores)),
        Requirement("turn only the last two axes of `K` on their side", _scores_unbatched),
        Requirement("Raise a `ValueError` naming both shapes when `Q` and `K` have fewer than 2 dimensions",
                    _scores_unchecked, docstring="Raises ValueError when Q and K are not (..., n, d_k)"),
    ), shows='The chapter\'s raw scores run from -5.68 to +5.92, with -0.28 for "cube" against "pick".'),
    Exercise("self_preference", ref.self_preference, self_preference_hidden, self_preference_visible, stream=21,
             meets=frozenset({"integers"}),
             parts=("the asymmetry", "the share of tokens preferring themselves"), mistakes=(
        Mistake("columns instead of rows", 2, "Row i holds token i's scores: compare S[i, i] with the largest of row i.",
                lambda S: _self_preference_with(S, by_column=True)),
        Mistake("a tie not counted", 2, "A row whose own score ties the largest still prefers itself: use >=.",
                lambda S: _self_preference_with(S, strict=True)),
        Mistake("a count instead of a fraction", 2, "Divide the number of rows that prefer themselves by n.",
                lambda S: _self_preference_with(S, count=True)),
    ), requirements=(
        Requirement("Return a tuple of two Python floats", lambda S: ref.self_preference(S)[1], docstring="two floats"),
        Requirement("(0.0 when `S` is symmetric)", _asymmetry_of_differing_pairs),
        Requirement("(a tie with another entry still counts)", "a tie not counted", docstring="(ties count)"),
        Requirement("Raise a `ValueError` when `S` is not a non-empty square 2-D grid", _self_preference_unchecked),
        Requirement("non-empty", _self_preference_of_nothing),
    ), shows="X Xᵀ of the worked example is symmetric; Q Kᵀ is not."),
    Exercise("scaled_scores", ref.scaled_scores, scores_hidden, scores_visible, stream=3,
             meets=ARRAYS | frozenset({"cross"}), points=Points(1, 2),
             built_on=("raw_scores",), mistakes=(
        Mistake("no scaling", 3, "Divide every score by √d_k, the square root of the head size.", ref.raw_scores),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k itself.",
                lambda Q, K: ref.raw_scores(Q, K) / np.shape(Q)[-1]),
    ), requirements=(
        Requirement("Keep float32 float32: divide by `math.sqrt(d_k)`",
                    lambda Q, K: ref.raw_scores(Q, K) / np.sqrt(np.shape(Q)[-1])),
        Requirement("Same shapes and errors as `raw_scores`", _scaled(_scores_unchecked),
                    docstring="Raises ValueError when Q and K are not (..., n, d_k)"),
    ), shows="Dividing by √4 = 2 takes the chapter's largest score from +5.92 to +2.96 and halves every gap."),
    Exercise("score_spread", ref.score_spread, score_spread_hidden, score_spread_visible, stream=4, meets=COUNTS,
             parts=("the raw spread", "the scaled spread"), computed_from="the raw spread",
             built_on=("raw_scores", "scaled_scores"), mistakes=(
        Mistake("scaled by d_k instead of √d_k", 3, "The scaled spread divides q·k by √d_k.",
                lambda d_k, n, rng: (lambda r: (r[0], r[1] / math.sqrt(d_k)))(ref.score_spread(d_k, n, rng))),
        Mistake("variance instead of standard deviation", 3, "The spread is the standard deviation (np.std), not the variance.",
                lambda d_k, n, rng: tuple(x * x for x in ref.score_spread(d_k, n, rng))),
    ), requirements=(
        Requirement("numpy's default, `ddof=0`", lambda d_k, n, rng: _spread_with(d_k, n, rng, ddof=1),
                    docstring="std with ddof=0"),
        Requirement("Draw in exactly that order and nothing else from `rng`",
                    lambda d_k, n, rng: _spread_with(d_k, n, rng, transposed=True),
                    docstring="Draws q then k, each ``rng.standard_normal((n_samples, d_k))``, and nothing else"),
        Requirement("Raise a `ValueError` when `d_k` or `n_samples` is below 1", _spread_unchecked),
    ), shows="The chapter measures a raw spread of 2.04 at head size 4 and about 1.00 once divided by √d_k."),
    Exercise("largest_weight", ref.largest_weight, largest_weight_hidden, largest_weight_visible, stream=5,
             meets=COUNTS,
             built_on=("raw_scores", "scaled_scores", "softmax"), mistakes=(
        Mistake("`scaled` ignored", 3, "Divide the scores by √d_k only when scaled is True.",
                lambda d_k, n_keys, scaled, n_trials, rng: ref.largest_weight(d_k, n_keys, not scaled, n_trials, rng)
                if scaled else ref.largest_weight(d_k, n_keys, scaled, n_trials, rng)),
    ), requirements=(
        Requirement("divide the scores by `√d_k` when `scaled` is true", "`scaled` ignored",
                    docstring="scaled: divide the scores by √d_k"),
        Requirement("Draw all the queries first", lambda d_k, n_keys, scaled, n_trials, rng: float(
            _largest_weights(d_k, n_keys, scaled, n_trials, rng, keys_first=True).mean()),
                    docstring="Draws the queries ``rng.standard_normal((n_trials, d_k))`` then the keys"),
        Requirement("Return the mean of those over the trials", _largest_weights,
                    docstring=("Mean share of the winning key",
                               "Returns the mean over trials of the largest softmax weight")),
        Requirement("Raise a `ValueError` when `d_k`, `n_keys` or `n_trials` is below 1", _largest_weight_unchecked),
    ), shows="With 64 keys the chapter's winning share climbs from 0.293 to 0.941 unscaled, and stays near 0.11 scaled."),
    Exercise("softmax_jacobian", ref.softmax_jacobian, softmax_jacobian_hidden, softmax_jacobian_visible, stream=40,
             meets=frozenset({"float32", "batched", "masked row", "1e4", "bad shape", "integers"}),
             built_on=("softmax",), mistakes=(
        Mistake("the diagonal forgotten", 3, "∂p_i/∂s_i is p_i − p_i²: add diag(p) to −p pᵀ.",
                lambda s: -_jacobian_parts(s)[2]),
        Mistake("the outer product forgotten", 3, "Every weight moves with every score: subtract p pᵀ from diag(p).",
                lambda s: _jacobian_parts(s)[1]),
        Mistake("sign flipped", 3, "∂p_i/∂s_i = p_i(1 − p_i) is positive: diag(p) − p pᵀ, not p pᵀ − diag(p).",
                lambda s: (lambda p, diagonal, outer: outer - diagonal)(*_jacobian_parts(s))),
        Mistake("the scores used instead of the weights", 3, "p is softmax(s), not s itself: take the softmax first.",
                lambda s: (lambda s: s[..., :, None] * np.eye(s.shape[-1]) - s[..., :, None] * s[..., None, :])(
                    np.asarray(s, dtype=float))),
        Mistake("softmax without subtracting the row maximum", 3,
                "Subtract each row's largest score before np.exp, or scores near 1e4 overflow to NaN.",
                lambda s: (lambda p, diagonal, outer: diagonal - outer)(*_jacobian_parts(s, stable=False)),
                also=(lambda s: (lambda p, diagonal, outer: diagonal - outer)(
                    *_jacobian_parts(s, stable=False, guarded=True)),)),
    ), requirements=(
        Requirement("the `(..., n, n)` grid diag(p) − p pᵀ", "the diagonal forgotten",
                    docstring=("J[..., i, j] = ∂p_i / ∂s_j", "diag(p) − p pᵀ with p = softmax(s)")),
        Requirement("with any leading batch dimensions", _jacobian_of_one_row, docstring="(any leading batch)"),
        Requirement("Float32 stays float32", _jacobian_in_float64),
        Requirement("integers are computed in float64", _jacobian_of_integers_in_float32),
        Requirement("Raise a `ValueError` when `s` is a single number", _jacobian_of_a_number,
                    docstring="Raises ValueError for a 0-d s"),
        Requirement("has weights of 0 and so a grid of zeros, never NaN", _jacobian_unguarded,
                    unseen="the worked example's scores forbid no key"),
    ), shows="Every row of the grid adds up to 0: moving all scores together moves no weight."),
)
