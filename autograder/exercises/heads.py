"""Notebook 04, heads: cutting the width into heads, joining them back, multi-head attention."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import f32, forbidding_row, normal_draws, widths_all_different, worked
from autograder.exercises.spec import (ARRAYS, SCORES, Exercise, Mistake, Points, Requirement, case, count_edges, counted,
                                       one_sequence_only, past_float32, small_unsigned)
from autograder.exercises.variants import as_computed, attention_with
from solutions import attention as ref

NOTEBOOK = "04_heads"


def _split_no_transpose(M, n_heads):
    M = as_computed(M)
    n, d = M.shape[-2:]
    return M.reshape(*M.shape[:-2], n_heads, n, d // n_heads)


def _merge_no_transpose(H):
    H = as_computed(H)
    h, n, d_k = H.shape[-3:]
    return H.reshape(*H.shape[:-3], n, h * d_k)


def _mha_with(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None, *,
              split=ref.split_heads, merge=ref.merge_heads, project_out=True, scale=None, head_axis=True,
              reads_context=True):
    """multi_head_attention with one thing done differently: the split, the merge, no W_o, the scale,
    the mask given no head axis (`head_axis` False), or keys and values from X whatever the context."""
    X = as_computed(X)
    context = X if context is None or not reads_context else as_computed(context)
    Q, K, V = X @ as_computed(W_q), context @ as_computed(W_k), context @ as_computed(W_v)
    if mask is not None:
        mask = np.asarray(mask)
        mask = np.expand_dims(mask, -3) if mask.ndim >= 2 and head_axis else mask
    heads, _ = attention_with(split(Q, n_heads), split(K, n_heads), split(V, n_heads), mask, scale=scale)
    joined = merge(heads)
    return joined @ as_computed(W_o) if project_out else joined


def _float32_batch(M):
    """M and its tokens in reverse order, stacked as a float32 batch of 2."""
    return np.stack([M, M[::-1]]).astype(f32)


def split_heads_visible():
    Q = worked().Q
    return [case("the worked example's queries in 2 heads", Q, 2),
            case("the worked example's queries twice, as a float32 batch of 2, in 2 heads", _float32_batch(Q), 2),
            case("integers 0 … 11 as 3 tokens of width 4, in 2 heads", np.arange(12).reshape(3, 4), 2),
            case("width 4 in 3 heads", Q, 3, raises="ValueError"),
            case("one query given as a 1-D vector", Q[0], 2, raises="ValueError")]


def split_heads_hidden(rng):
    n = normal_draws(rng)
    return [case("width 12 in 3 heads, batch 2", n(2, 5, 12), 3, checks="batched"),
            case("width 8 in 4 heads, float32", n(7, 8, dtype=f32), 4, checks="float32"),
            case("integers, width 6 in 3 heads", rng.integers(-5, 6, (4, 6)), 3),
            case("width 10 in 4 heads", n(3, 10), 4, raises="ValueError", checks="bad shape"),
            case("width 9 in 2 heads", n(2, 4, 9), 2, raises="ValueError", checks="bad shape"),
            case("a 1-D vector of width 8", n(8), 2, raises="ValueError", checks="bad shape")] + \
        count_edges((n(3, 6), 3), {1: "n_heads"})


def _split_unchecked(M, n_heads):
    """split_heads that checks the width only: a 1-D M reshapes, then has no token axis to move the heads past."""
    M = np.asarray(M) if np.asarray(M).dtype.kind == "f" else np.asarray(M, dtype=np.float64)
    if M.shape[-1] % n_heads:
        raise ValueError(f"cannot cut width {M.shape[-1]} into {n_heads} heads")
    return np.moveaxis(M.reshape(*M.shape[:-1], n_heads, M.shape[-1] // n_heads), -2, -3)


def _split_by_slices(M, n_heads):
    """split_heads that slices columns m·d_k … (m+1)·d_k − 1 with d_k = d // n_heads: a remainder is dropped."""
    M = np.asarray(M) if np.asarray(M).dtype.kind == "f" else np.asarray(M, dtype=np.float64)
    if M.ndim < 2:
        raise ValueError(f"M must be (..., n, d), got shape {M.shape}")
    d_k = M.shape[-1] // n_heads
    return np.stack([M[..., m * d_k:(m + 1) * d_k] for m in range(n_heads)], axis=-3)


def merge_heads_visible():
    Q = worked().Q
    return [case("2 heads of the worked example", ref.split_heads(Q, 2)),
            case("2 heads of the worked example twice, as a float32 batch of 2", ref.split_heads(_float32_batch(Q), 2)),
            case("the worked example's queries: 2 dimensions, no heads axis", Q, raises="ValueError")]


def merge_heads_hidden(rng):
    n = normal_draws(rng)
    return [case("3 heads of 4, batch 2", n(2, 3, 5, 4), checks="batched"),
            case("4 heads of 2, float32", n(4, 7, 2, dtype=f32), checks="float32"),
            case("2 dimensions, no heads axis", n(5, 4), raises="ValueError", checks="bad shape"),
            case("1 dimension", n(6), raises="ValueError", checks="bad shape")]


def _merge_unchecked(H):
    """merge_heads with no check: a 2-D H has no heads axis to move, and NumPy raises its AxisError."""
    H = np.asarray(H) if np.asarray(H).dtype.kind == "f" else np.asarray(H, dtype=np.float64)
    return np.moveaxis(H, -3, -2).reshape(*H.shape[:-3], H.shape[-2], -1)


def multi_head_attention_visible():
    w = worked()
    return [case("the worked example, 2 heads", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2),
            case("the worked example, 2 heads, causal", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, mask=ref.causal_mask(4)),
            case("the first 2 tokens read all 4 (cross-attention), 2 heads", w.X[:2], w.W_q, w.W_k, w.W_v, w.W_o, 2,
                 context=w.X),
            case("every size different: 3 tokens read 5 of width 4, d_h = 14 in 2 heads of 7, d_out = 6",
                 w.X[:3], *widths_all_different(), 2, context=np.vstack([w.X, w.X[:1] + 1])),
            case("the worked example twice, as a float32 batch of 2, 2 heads", _float32_batch(w.X),
                 *(W.astype(f32) for W in (w.W_q, w.W_k, w.W_v, w.W_o)), 2),
            case("a batch of 2, 2 heads, a (2, 4, 4) mask: causal, the second sequence 3 tokens long",
                 np.stack([w.X, w.X[::-1]]), w.W_q, w.W_k, w.W_v, w.W_o, 2,
                 mask=ref.causal_mask(4) + ref.padding_mask(np.array([4, 3]), 4))]


def multi_head_attention_hidden(rng):
    n = normal_draws(rng)

    def W(d, e, dtype=np.float64):
        return n(d, e, dtype=dtype, scale=d ** -0.5)

    return [
        case("width 12, 3 heads, batch 2", n(2, 6, 12), W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3,
             checks="batched"),
        case("float32, width 8, 4 heads, causal", n(5, 8, dtype=f32), *(W(8, 8, f32) for _ in range(4)), 4,
             mask=ref.causal_mask(5), checks="float32"),
        case("cross-attention: 3 tokens read 7, 2 heads", n(3, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
             context=n(7, 8), checks="cross"),
        case("cross-attention with a mask that forbids every key of token 2", n(4, 8), W(8, 8), W(8, 8), W(8, 8),
             W(8, 8), 2, mask=forbidding_row(4, 6, 2), context=n(6, 8), checks="masked row, cross"),
        case("scores near ±1e4, 2 heads", n(4, 8), n(8, 8, scale=30), n(8, 8, scale=30), W(8, 8), W(8, 8), 2,
             checks="1e4"),
        case("padding mask over a batch of 2", n(2, 5, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
             mask=ref.padding_mask(np.array([5, 2]), 5)),
        case("a batch of 3, 2 heads, a (3, 6, 6) causal and padding mask", n(3, 6, 8), W(8, 8), W(8, 8), W(8, 8),
             W(8, 8), 2, mask=ref.causal_mask(6) + ref.padding_mask(np.array([6, 4, 2]), 6), checks="batched"),
        case("width 10 in 4 heads", n(3, 10), W(10, 10), W(10, 10), W(10, 10), W(10, 10), 4, raises="ValueError",
             checks="bad shape"),
    ] + count_edges((n(3, 6), W(6, 6), W(6, 6), W(6, 6), W(6, 6), 2), {5: "n_heads"}) + [
        case("every width different: d = 8, d_h = 6, d_v = 4, d_out = 5, 2 heads", n(4, 8), W(8, 6), W(8, 6), W(8, 4),
             W(4, 5), 2),
        case("a 1-D mask of one number per key (5,)", n(5, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
             mask=np.where(np.arange(5) >= 3, -np.inf, 0.0)),
        case("a mask of one number per query (5, 1)", n(5, 8), W(8, 8), W(8, 8), W(8, 8), W(8, 8), 2,
             mask=np.array([[0.0], [-1.0], [2.0], [0.5], [1.0]])),
        case("sizes past 256: 2 tokens of width 260, d_h = 258, 2 heads", n(2, 260), W(260, 258), W(260, 258),
             W(260, 258), W(258, 2), 2),
        case("8-bit unsigned integers of 0 and 1 (nothing wraps round), 2 heads", small_unsigned(5, 4),
             small_unsigned(4, 4, k=1), small_unsigned(4, 4, k=2), small_unsigned(4, 4), small_unsigned(4, 3, k=1), 2,
             checks="integers"),
        case("integer tokens past 2²⁵, where float32 holds every fourth only, weights −1, 0, 1, 2 heads",
             past_float32(n(5, 4)), *(np.sign(np.rint(n(4, 4))).astype(np.int64) for _ in range(4)), 2,
             checks="integers"),
        case("cross-attention over a batch of 2: 3 tokens read 5 in each, 2 heads", n(2, 3, 8), W(8, 8), W(8, 8),
             W(8, 8), W(8, 8), 2, context=n(2, 5, 8), checks="batched, cross")]


def head_patterns_visible():
    w = worked()
    return [case("the worked example, 1 head", w.X, w.W_q, w.W_k, 1),
            case("the worked example, 2 heads", w.X, w.W_q, w.W_k, 2),
            case("the worked example and its tokens reversed, a float32 batch of 2, in 4 heads",
                 _float32_batch(w.X), w.W_q.astype(f32), w.W_k.astype(f32), 4),
            _patterns_of_every_size(w),
            case("width 4 in 3 heads", w.X, w.W_q, w.W_k, 3, raises="ValueError")]


def _patterns_of_every_size(w):
    """The visible case of head_patterns and head_score_ranks where no two sizes tie."""
    W_q, W_k = widths_all_different()[:2]
    return case("every size different: 3 tokens of width 4, d_h = 14 in 2 heads of 7", w.X[:3], W_q, W_k, 2)


def head_patterns_hidden(rng):
    n = normal_draws(rng)
    X, W_q, W_k = n(7, 12), n(12, 12), n(12, 12)
    return [case(f"7 tokens of width 12, {counted(h, 'head')}", X, W_q, W_k, h) for h in (2, 3, 6)] + [
        case("a batch (2, 5, 8) in float32, 2 heads", n(2, 5, 8, dtype=f32), n(8, 8, dtype=f32), n(8, 8, dtype=f32), 2,
             checks="batched, float32"),
        case("9 tokens of width 6 into d_h = 8, 4 heads", n(9, 6), n(6, 8), n(6, 8), 4),
        case("width 12 in 5 heads", X, W_q, W_k, 5, raises="ValueError", checks="bad shape"),
        case("W_q and W_k of different widths", X, n(12, 8), n(12, 6), 2, raises="ValueError", checks="bad shape"),
        case("W_q that does not fit X", X, n(10, 12), n(10, 12), 2, raises="ValueError", checks="bad shape")] + \
        count_edges((n(5, 6), n(6, 6), n(6, 6), 2), {3: "n_heads"}) + [
        case("a W_k that is a stack of 2 matrices (2, 6, 6)", n(5, 6), n(6, 6), n(2, 6, 6), 2, raises="ValueError",
             checks="bad shape"),
        case("a W_k that is a stack of 6 matrices (6, 6, 6)", n(5, 6), n(6, 6), n(6, 6, 6), 2, raises="ValueError",
             checks="bad shape"),
        case("W_q and W_k stacks of 6 matrices (6, 6, 4)", n(5, 6), n(6, 6, 4), n(6, 6, 4), 2, raises="ValueError",
             checks="bad shape"),
        case("sizes past 256: 3 tokens of width 260, d_h = 4, 2 heads", n(3, 260), n(260, 4), n(260, 4), 2),
        case("8-bit unsigned integers of 0 and 1 (nothing wraps round), 2 heads", small_unsigned(5, 4),
             small_unsigned(4, 4, k=1), small_unsigned(4, 4, k=2), 2, checks="integers")]


def _patterns_with(X, W_q, W_k, n_heads, *, split=ref.split_heads, scale=None, axis=-1):
    """head_patterns with one thing done differently: the split, the scale (of d_k), the softmax's axis."""
    X, W_q, W_k = as_computed(X), as_computed(W_q), as_computed(W_k)
    Q, K = split(X @ W_q, n_heads), split(X @ W_k, n_heads)
    d_k = Q.shape[-1]
    S = ref.raw_scores(Q, K) / (math.sqrt(d_k) if scale is None else scale(d_k))
    return ref.softmax(S, axis=axis)


def _sliced_heads(X, W_q, W_k, n_heads):
    """Every head's queries and keys, (..., n_heads, n, d_h // n_heads) each, cut by slicing columns with no
    check: a width the heads do not divide loses its last columns silently."""
    Q, K = as_computed(X) @ as_computed(W_q), as_computed(X) @ as_computed(W_k)
    d_k = Q.shape[-1] // n_heads
    return tuple(np.stack([M[..., m * d_k:(m + 1) * d_k] for m in range(n_heads)], axis=-3) for M in (Q, K))


def _patterns_sliced(X, W_q, W_k, n_heads):
    """head_patterns on sliced heads (`_sliced_heads`)."""
    return ref.softmax(ref.scaled_scores(*_sliced_heads(X, W_q, W_k, n_heads)))


def _muted(W_q, W_k, n_heads):
    """W_q with head 0's columns zero and W_k with head 1's: two heads whose grids are all zeros,
    one of which the queries alone cannot show."""
    W_q, W_k = W_q.copy(), W_k.copy()
    d_k = W_q.shape[1] // n_heads
    W_q[:, :d_k] = 0.0
    W_k[:, d_k:2 * d_k] = 0.0
    return W_q, W_k


def head_score_ranks_visible():
    w = worked()
    mute_q, mute_k = _muted(w.W_q, w.W_k, 4)
    return [case("the worked example, 1 head", w.X, w.W_q, w.W_k, 1),
            case("the worked example, 2 heads", w.X, w.W_q, w.W_k, 2),
            case("the worked example, 4 heads of size 1", w.X, w.W_q, w.W_k, 4),
            case("4 heads: head 0 with queries of zeros, head 1 with keys of zeros", w.X, mute_q, mute_k, 4),
            case("the worked example's tokens a million times smaller, 2 heads", w.X * 1e-6, w.W_q, w.W_k, 2),
            _patterns_of_every_size(w),
            case("width 4 in 3 heads", w.X, w.W_q, w.W_k, 3, raises="ValueError"),
            case("the worked example twice, as a batch (2, 4, 4)", np.stack([w.X, w.X]), w.W_q, w.W_k, 2,
                 raises="ValueError")]


def head_score_ranks_hidden(rng):
    n = normal_draws(rng)
    X, W_q, W_k = n(10, 12), n(12, 12), n(12, 12)
    flat = n(8, 3) @ n(3, 12)  # 8 tokens that span only 3 directions
    mute_q, mute_k = _muted(n(16, 16), n(16, 16), 4)
    return [case(f"10 tokens of width 12, {counted(h, 'head')}", X, W_q, W_k, h) for h in (1, 3, 6)] + [
        case("3 tokens, 2 heads of size 8", n(3, 16), n(16, 16), n(16, 16), 2),
        case("8 tokens spanning 3 directions, 3 heads of size 4", flat, n(12, 12), n(12, 12), 3),
        case("4 heads: head 0 with queries of zeros, head 1 with keys of zeros", n(9, 16), mute_q, mute_k, 4),
        case("width 12 in 5 heads", X, W_q, W_k, 5, raises="ValueError", checks="bad shape"),
        case("W_q and W_k of different widths", X, n(12, 8), n(12, 6), 2, raises="ValueError", checks="bad shape"),
        case("a 1-D X", n(12), W_q, W_k, 2, raises="ValueError", checks="bad shape"),
        case("a batch of 2 sequences, X (2, 5, 12)", n(2, 5, 12), W_q, W_k, 3, raises="ValueError", checks="bad shape"),
        case("10 tokens of width 12 a million times smaller, 3 heads", X * 1e-6, W_q, W_k, 3),
        case("10 tokens of width 12 in float32, 3 heads", X.astype(f32), W_q.astype(f32), W_k.astype(f32), 3)] + \
        count_edges((n(5, 6), n(6, 6), n(6, 6), 2), {3: "n_heads"}) + [
        case("a batch of 2 sequences of 12 tokens, X (2, 12, 12)", n(2, 12, 12), W_q, W_k, 3, raises="ValueError",
             checks="bad shape"),
        case("a W_k that is a stack of 2 matrices (2, 12, 12)", X, W_q, n(2, 12, 12), 3, raises="ValueError",
             checks="bad shape"),
        case("a W_k that is a stack of 12 matrices (12, 12, 12)", X, W_q, n(12, 12, 12), 3, raises="ValueError",
             checks="bad shape"),
        case("W_q and W_k stacks of 12 matrices (12, 12, 6)", X, n(12, 12, 6), n(12, 12, 6), 3, raises="ValueError",
             checks="bad shape"),
        case("10 tokens of width 12 into d_h = 10, 2 heads", X, n(12, 10), n(12, 10), 2),
        case("sizes past 256: 3 tokens of width 260, d_h = 8, 2 heads", n(3, 260), n(260, 8), n(260, 8), 2),
        case("8 tokens within 1e-4 of 3 directions, in float32, 3 heads: ranks 3 in float32 (4 in float64)",
             (flat + n(8, 12, scale=1e-4)).astype(f32), *(n(12, 12).astype(f32) for _ in range(2)), 3),
        case("6 tokens of width 12, matrices of integers past 2²⁵, where float32 holds every fourth only, 2 heads",
             n(6, 12), past_float32(n(12, 8)), past_float32(n(12, 8)), 2, checks="integers"),
        case("8-bit unsigned integers of 0 and 1 (nothing wraps round), 1 head", small_unsigned(5, 4),
             small_unsigned(4, 4, k=1), small_unsigned(4, 4, k=2), 1, checks="integers"),
        case("8-bit unsigned integers: 6 tokens of width 12 spanning 2 directions, products past 255, 2 heads",
             *_unsigned_in_two_directions(n), 2, checks="integers")]


def _unsigned_in_two_directions(n):
    """X, W_q, W_k of 8-bit unsigned integers: 6 tokens of width 12, each 1 to 3 times one token of 0 to 5 plus 1
    to 3 times another (entries at most 30), and (12, 8) matrices of 0 to 30, so that the products X W run past
    255: computed in float64 each head's grid has rank 2; computed in uint8 they wrap round (mod 256), off those
    2 directions."""
    def drawn(*shape, most, least=0):  # whole numbers from least to most, spread by the draws' digits
        return least + np.rint(np.abs(n(*shape)) * 100) % (most - least + 1)
    X = drawn(6, 2, least=1, most=3) @ drawn(2, 12, most=5)
    return X.astype(np.uint8), *(drawn(12, 8, most=30).astype(np.uint8) for _ in range(2))


def _ranks_of_any_batch(X, W_q, W_k, n_heads, tol=None):
    """head_score_ranks with no check of X's dimensions (a batch of sequences gives a grid of ranks), ranked
    with an absolute tolerance when `tol` is given."""
    X = np.asarray(X, dtype=float)
    scores = ref.raw_scores(ref.split_heads(X @ W_q, n_heads), ref.split_heads(X @ W_k, n_heads))
    return np.linalg.matrix_rank(scores, tol=tol).astype(np.int64)


def _ranks_unchecked(X, W_q, W_k, n_heads):
    """head_score_ranks on sliced heads (`_sliced_heads`), in float64."""
    return np.linalg.matrix_rank(ref.raw_scores(*_sliced_heads(np.asarray(X, dtype=float), W_q, W_k, n_heads))
                                 ).astype(np.int64)


EXERCISES = (
    Exercise("split_heads", ref.split_heads, split_heads_hidden, split_heads_visible, stream=8, meets=ARRAYS, mistakes=(
        Mistake("heads cut by a reshape without the transpose", 5,
                "Reshape to (..., n, n_heads, d_k) and then swap the n and n_heads axes.", _split_no_transpose),
    ), requirements=(
        Requirement("`(..., n, d)` → `(..., n_heads, n, d_k)`", one_sequence_only(ref.split_heads)),
        Requirement("Float32 stays float32", lambda M, h: ref.split_heads(M, h).astype(np.float64)),
        Requirement("integers become float64",
                    lambda M, h: ref.split_heads(M, h).astype(np.asarray(M).dtype, copy=False)),
        Requirement("Raise a `ValueError` naming the shape when `M` has fewer than 2 dimensions", _split_unchecked,
                    docstring="Raises ValueError when M has fewer than 2 dimensions"),
        Requirement("`d` is not divisible by `n_heads`", _split_by_slices,
                    docstring=("with d divisible by n_heads", "d is not divisible by n_heads")),
    ), shows="With two heads the chapter gives head one the first two numbers of every query, head two the last two."),
    Exercise("merge_heads", ref.merge_heads, merge_heads_hidden, merge_heads_visible, stream=9, meets=ARRAYS, mistakes=(
        Mistake("heads merged in the wrong order", 5,
                "Swap the heads axis back next to d_k before the reshape, so head m fills columns m·d_k … (m+1)·d_k − 1.",
                _merge_no_transpose),
    ), requirements=(
        Requirement("the inverse of `split_heads`", "heads merged in the wrong order",
                    docstring="the inverse of `split_heads`"),
        Requirement("Raise a `ValueError` naming the shape when `H` has fewer than 3 dimensions", _merge_unchecked,
                    docstring="Raises ValueError when H has fewer than 3 dimensions"),
    ), shows="The chapter joins the heads side by side, which gives a grid of the original width again."),
    Exercise("multi_head_attention", ref.multi_head_attention, multi_head_attention_hidden,
             multi_head_attention_visible, stream=10, meets=ARRAYS | SCORES, points=Points(1, 3),
             built_on=("project_qkv", "raw_scores", "scaled_scores", "softmax", "attention", "split_heads",
                       "merge_heads"), mistakes=(
        Mistake("heads cut by a reshape without the transpose", 5,
                "Reshape to (..., n, n_heads, d_k) and swap axes; a bare reshape mixes tokens into heads.",
                lambda *a, **k: _mha_with(*a, **k, split=_split_no_transpose)),
        Mistake("heads merged in the wrong order", 5, "Swap the heads axis back before the reshape.",
                lambda *a, **k: _mha_with(*a, **k, merge=_merge_no_transpose)),
        Mistake("output projection missing", 5, "Multiply the joined heads by W_o.",
                lambda *a, **k: _mha_with(*a, **k, project_out=False)),
        Mistake("scaled by the full width", 5, "Each head divides by the square root of its own head size d_k = d / n_heads.",
                lambda X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None: _mha_with(
                    X, W_q, W_k, W_v, W_o, n_heads, mask, context, scale=lambda d: math.sqrt(d * n_heads))),
        Mistake("no scaling", 3, "Divide each head's scores by √d_k.",
                lambda *a, **k: _mha_with(*a, **k, scale=lambda d: 1.0)),
    ), requirements=(
        Requirement("`X` is `(..., n, d)`", one_sequence_only(ref.multi_head_attention)),
        Requirement("keys and values from `context`", lambda *a, **k: _mha_with(*a, **k, reads_context=False),
                    docstring="context: (..., m, d) the tokens that answer"),
        Requirement("give it a head axis of size 1 in front of its last two",
                    lambda *a, **k: _mha_with(*a, **k, head_axis=False),
                    docstring="the same mask serves every head"),
    ), shows="The chapter cuts the worked example into two heads of size 2, each dividing its scores by √2."),
    Exercise("head_patterns", ref.head_patterns, head_patterns_hidden, head_patterns_visible, stream=24,
             meets=frozenset({"float32", "batched", "bad shape", "integers"}),
             built_on=("split_heads", "raw_scores", "scaled_scores", "softmax"), mistakes=(
        Mistake("scaled by the full width", 5, "Each head divides by the square root of its own size d_k = d_h / n_heads.",
                lambda X, W_q, W_k, h: _patterns_with(X, W_q, W_k, h, scale=lambda d_k: math.sqrt(d_k * h))),
        Mistake("no scaling", 3, "Divide each head's scores by √d_k before the softmax.",
                lambda X, W_q, W_k, h: _patterns_with(X, W_q, W_k, h, scale=lambda d_k: 1.0)),
        Mistake("softmax over the queries", 4, "Each row is one token's weights over the keys: softmax along the last axis.",
                lambda X, W_q, W_k, h: _patterns_with(X, W_q, W_k, h, axis=-2)),
        Mistake("heads cut by a reshape without the transpose", 5,
                "Cut the queries and keys with split_heads: a bare reshape mixes tokens into heads.",
                lambda X, W_q, W_k, h: _patterns_with(X, W_q, W_k, h, split=_split_no_transpose)),
    ), requirements=(
        Requirement("`X` is `(..., n, d)`", one_sequence_only(ref.head_patterns)),
        Requirement("as one array of shape `(..., n_heads, n, n)`",  # the heads stacked in front of the batch
                    lambda X, W_q, W_k, h: np.moveaxis(ref.head_patterns(X, W_q, W_k, h), -3, 0)),
        Requirement("Float32 in gives float32 out",
                    lambda X, W_q, W_k, h: ref.head_patterns(X, W_q, W_k, h).astype(np.float64)),
        Requirement("Raise a `ValueError` when `n_heads` does not divide the width", _patterns_sliced,
                    docstring="n_heads does not divide d_h"),
    ), shows="On the worked example in 1, 2 and 4 heads, as a float32 batch too, and a width the heads do not divide."),
    Exercise("head_score_ranks", ref.head_score_ranks, head_score_ranks_hidden, head_score_ranks_visible, stream=41,
             meets=frozenset({"bad shape", "integers"}),
             built_on=("split_heads", "raw_scores"), mistakes=(
        Mistake("the bound instead of the measurement", 5,
                "Measure each grid with np.linalg.matrix_rank; d_k is only the most it can be.",
                lambda X, W_q, W_k, h: np.full(h, np.shape(W_q)[-1] // h, dtype=np.int64)),
        Mistake("the whole grid's rank", 5, "Cut the queries and keys into heads first: one grid per head.",
                lambda X, W_q, W_k, h: np.full(h, np.linalg.matrix_rank(
                    (as_computed(X) @ as_computed(W_q)) @ (as_computed(X) @ as_computed(W_k)).T), dtype=np.int64)),
        Mistake("the queries' rank instead of the scores'", 5,
                "Rank the score grid Q_m K_mᵀ: keys that carry nothing leave nothing to compare.",
                lambda X, W_q, W_k, h: np.linalg.matrix_rank(ref.split_heads(as_computed(X) @ as_computed(W_q), h))
                                                          .astype(np.int64)),
    ), requirements=(
        Requirement("an integer array of shape `(n_heads,)`",
                    lambda X, W_q, W_k, h: ref.head_score_ranks(X, W_q, W_k, h).astype(float)),
        Requirement("Raise a `ValueError` when `n_heads` does not divide the width", _ranks_unchecked,
                    docstring="n_heads does not divide d_h"),
        Requirement("when `X` is not 2-D", _ranks_of_any_batch),
        Requirement("`np.linalg.matrix_rank` with its default tolerance",
                    lambda X, W_q, W_k, h: _ranks_of_any_batch(X, W_q, W_k, h, tol=1e-8)),
    ), shows="On the worked example: one head of size 4, two of size 2, four of size 1, heads given zero queries or "
             "keys, and its tokens made a million times smaller."),
)
