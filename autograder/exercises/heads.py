"""Notebook 04, heads: cutting the width into heads, joining them back, multi-head attention."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import f32, forbidding_row, normal_draws, worked
from autograder.exercises.spec import Exercise, Mistake, Points, case
from autograder.exercises.variants import attention_with
from solutions import attention as ref

NOTEBOOK = "04_heads"


def _split_no_transpose(M, n_heads):
    M = np.asarray(M)
    n, d = M.shape[-2:]
    return M.reshape(*M.shape[:-2], n_heads, n, d // n_heads)


def _merge_no_transpose(H):
    H = np.asarray(H)
    h, n, d_k = H.shape[-3:]
    return H.reshape(*H.shape[:-3], n, h * d_k)


def _mha_with(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None, *,
              split=ref.split_heads, merge=ref.merge_heads, project_out=True, scale=None):
    X = np.asarray(X)
    context = X if context is None else np.asarray(context)
    Q, K, V = X @ W_q, context @ W_k, context @ W_v
    if mask is not None:
        mask = np.asarray(mask)
        mask = np.expand_dims(mask, -3) if mask.ndim >= 2 else mask
    heads, _ = attention_with(split(Q, n_heads), split(K, n_heads), split(V, n_heads), mask, scale=scale)
    joined = merge(heads)
    return joined @ W_o if project_out else joined


def split_heads_visible():
    return [case("the worked example's queries in 2 heads", worked().Q, 2)]


def split_heads_hidden(rng):
    n = normal_draws(rng)
    return [case("width 12 in 3 heads, batch 2", n(2, 5, 12), 3, checks="batched"),
            case("width 8 in 4 heads, float32", n(7, 8, dtype=f32), 4, checks="float32"),
            case("width 10 in 4 heads", n(3, 10), 4, raises="ValueError", checks="bad shape")]


def merge_heads_visible():
    return [case("2 heads of the worked example", ref.split_heads(worked().Q, 2))]


def merge_heads_hidden(rng):
    n = normal_draws(rng)
    return [case("3 heads of 4, batch 2", n(2, 3, 5, 4), checks="batched"),
            case("4 heads of 2, float32", n(4, 7, 2, dtype=f32), checks="float32"),
            case("2 dimensions, no heads axis", n(5, 4), raises="ValueError", checks="bad shape")]


def multi_head_attention_visible():
    w = worked()
    return [case("the worked example, 2 heads", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2),
            case("the worked example, 2 heads, causal", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, mask=ref.causal_mask(4))]


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
        case("width 10 in 4 heads", n(3, 10), W(10, 10), W(10, 10), W(10, 10), W(10, 10), 4, raises="ValueError",
             checks="bad shape"),
    ]


def pattern_count_visible():
    return [case("12 layers of 12 heads (the chapter: 144)", 12, 12)]


def pattern_count_hidden(rng):
    return [case("2 layers of 4 heads (the explorer's model)", 2, 4),
            case("32 layers of 32 heads", 32, 32),
            case("0 layers", 0, 4, raises="ValueError")]


EXERCISES = (
    Exercise("split_heads", ref.split_heads, split_heads_hidden, split_heads_visible, stream=8, mistakes=(
        Mistake("heads cut by a reshape without the transpose", 5,
                "Reshape to (..., n, n_heads, d_k) and then swap the n and n_heads axes.", _split_no_transpose),
    )),
    Exercise("merge_heads", ref.merge_heads, merge_heads_hidden, merge_heads_visible, stream=9, mistakes=(
        Mistake("heads merged in the wrong order", 5,
                "Swap the heads axis back next to d_k before the reshape, so head m fills columns m·d_k … (m+1)·d_k − 1.",
                _merge_no_transpose),
    )),
    Exercise("multi_head_attention", ref.multi_head_attention, multi_head_attention_hidden,
             multi_head_attention_visible, stream=10, points=Points(1, 3),
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
    )),
    Exercise("pattern_count", ref.pattern_count, pattern_count_hidden, pattern_count_visible, stream=24, mistakes=(
        Mistake("layers plus heads", 5, "Every layer has its own heads: multiply, do not add.", lambda L, h: L + h),
        Mistake("one layer only", 5, "Each of the n_layers layers has n_heads patterns.", lambda L, h: h),
    )),
)
