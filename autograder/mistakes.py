"""Known mistakes, each written as the function a student who makes it would write.

A wrong answer that matches one of these outputs is told the mistake by name.
Each variant takes the same arguments as the exercise it belongs to. They are
built from the reference, so they stay instructor-only (never released).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from autograder.judge import FULL_GRID
from solutions import attention as ref


class Mistake(NamedTuple):
    name: str
    section: int
    explanation: str
    variant: Callable | None  # None: the mistake shows in memory use, not in values


def _softmax_no_max(S, axis=-1):
    S = np.asarray(S)
    e = np.exp(S)
    return e / e.sum(axis=axis, keepdims=True)


def _attention_with(Q, K, V, mask=None, *, scale=None, softmax=ref.softmax, axis=-1, mask_mode="add"):
    """attention with one thing done differently (for the variants below)."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    d_k = Q.shape[-1]
    S = ref.raw_scores(Q, K)
    S = S / (math.sqrt(d_k) if scale is None else scale(d_k))
    m = None if mask is None else np.asarray(mask).astype(S.dtype)
    if m is not None and mask_mode == "add":
        S = S + m
    if m is not None and mask_mode == "flip":
        S = S - m
    if m is not None and mask_mode == "multiply":
        S = S * np.where(np.isinf(m), 0, 1).astype(S.dtype)
    A = softmax(S, axis=axis)
    if m is not None and mask_mode == "after":
        A = A + m
    return A @ V, A


def _causal_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def _causal_one_ahead(n):
    return np.triu(np.full((n, n), -np.inf), k=2)


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
    heads, _ = _attention_with(split(Q, n_heads), split(K, n_heads), split(V, n_heads), mask, scale=scale)
    joined = merge(heads)
    return joined @ W_o if project_out else joined


def _blockwise_with(Q, K, V, block_size=128, causal=False, *, rescale=True, divide=True):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    n_q, n_k = Q.shape[-2], K.shape[-2]
    Qs = Q / math.sqrt(Q.shape[-1])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf, dtype=Q.dtype)
    total = np.zeros((*batch, n_q, 1), dtype=Q.dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=Q.dtype)
    for start in range(0, n_k, block_size):
        s = Qs @ np.swapaxes(K[..., start:start + block_size, :], -1, -2)
        if causal:
            s = np.where(np.arange(start, start + s.shape[-1])[None, :] > np.arange(n_q)[:, None], -np.inf, s)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        factor = np.exp(m - new_m) if rescale else np.ones_like(m)
        p = np.exp(s - new_m)
        total = total * factor + p.sum(axis=-1, keepdims=True)
        acc = acc * factor + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / total if divide else acc


def _times(f, factor):
    return lambda *args, **kwargs: f(*args, **kwargs) * factor


# Section numbers follow the chapter (attention-guide.txt).
MISTAKES: dict[str, list[Mistake]] = {
    "token_movement": [
        Mistake("signed difference", 1, "Take the size of each difference (np.abs) before averaging.",
                lambda X, O: (np.asarray(X) - np.asarray(O)).mean(axis=-1)),
        Mistake("sum instead of mean", 1, "Average the sizes over the d numbers of a token; do not add them.",
                lambda X, O: np.abs(np.asarray(X) - np.asarray(O)).sum(axis=-1)),
    ],
    "project_qkv": [
        Mistake("transposed weights", 2, "Rows of X are tokens: multiply X @ W, not X @ W.T.",
                lambda X, W_q, W_k, W_v: tuple(np.asarray(X) @ np.asarray(W).T for W in (W_q, W_k, W_v))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(np.asarray(X) @ W for W in (W_k, W_q, W_v))),
    ],
    "raw_scores": [
        Mistake("keys against queries", 3, "Row i belongs to query i: Q @ K.T, not K @ Q.T.",
                lambda Q, K: np.swapaxes(ref.raw_scores(Q, K), -1, -2)),
        Mistake("already scaled", 3, "raw_scores is the plain dot product; the division by √d_k belongs to scaled_scores.",
                ref.scaled_scores),
    ],
    "scaled_scores": [
        Mistake("no scaling", 3, "Divide every score by √d_k, the square root of the head size.", ref.raw_scores),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k itself.",
                lambda Q, K: ref.raw_scores(Q, K) / np.shape(Q)[-1]),
    ],
    "score_spread": [
        Mistake("scaled by d_k instead of √d_k", 3, "The scaled spread divides q·k by √d_k.",
                lambda d_k, n, rng: (lambda r: (r[0], r[1] / math.sqrt(d_k)))(ref.score_spread(d_k, n, rng))),
        Mistake("variance instead of standard deviation", 3, "The spread is the standard deviation (np.std), not the variance.",
                lambda d_k, n, rng: tuple(x * x for x in ref.score_spread(d_k, n, rng))),
    ],
    "largest_weight": [
        Mistake("`scaled` ignored", 3, "Divide the scores by √d_k only when scaled is True.",
                lambda d_k, n_keys, scaled, n_trials, rng: ref.largest_weight(d_k, n_keys, not scaled, n_trials, rng)
                if scaled else ref.largest_weight(d_k, n_keys, scaled, n_trials, rng)),
    ],
    "softmax": [
        Mistake("softmax over the wrong axis", 4, "Each row of scores (one query) must add up to one: normalise along `axis`.",
                lambda S, axis=-1: ref.softmax(S, axis=-2 if np.ndim(S) > 1 and axis in (-1, np.ndim(S) - 1) else -1)),
        Mistake("softmax without subtracting the row maximum", 4,
                "exp overflows to inf for large scores (inf/inf is NaN): subtract each row's maximum first.",
                _softmax_no_max),
    ],
    "attention": [
        Mistake("no scaling", 3, "Divide the scores by √d_k before the softmax.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, scale=lambda d: 1.0)),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, scale=float)),
        Mistake("softmax over the wrong axis", 4, "Each query's row of weights must add up to one (softmax along the keys).",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, axis=-2)),
        Mistake("softmax without subtracting the row maximum", 4, "Large scores overflow: subtract each row's maximum first.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, softmax=_softmax_no_max)),
        Mistake("mask added after the softmax", 6, "Add the mask to the scores, before the softmax.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, mask_mode="after")),
        Mistake("mask multiplied instead of added", 6, "The mask is additive: 0 allows a pair, −inf forbids it.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, mask_mode="multiply")),
        Mistake("mask sign flipped", 6, "Add the mask (−inf forbids); subtracting it makes forbidden pairs win.",
                lambda Q, K, V, mask=None: _attention_with(Q, K, V, mask, mask_mode="flip")),
    ],
    "split_heads": [
        Mistake("heads cut by a reshape without the transpose", 5,
                "Reshape to (..., n, n_heads, d_k) and then swap the n and n_heads axes.", _split_no_transpose),
    ],
    "merge_heads": [
        Mistake("heads merged in the wrong order", 5,
                "Swap the heads axis back next to d_k before the reshape, so head m fills columns m·d_k … (m+1)·d_k − 1.",
                _merge_no_transpose),
    ],
    "multi_head_attention": [
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
    ],
    "causal_mask": [
        Mistake("causal mask off by one: diagonal forbidden", 6, "A token may see itself: forbid only j > i.",
                _causal_diagonal),
        Mistake("causal mask off by one: one future token allowed", 6, "Forbid every j > i, including j = i + 1.",
                _causal_one_ahead),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.", lambda n: -ref.causal_mask(n)),
        Mistake("mask transposed", 6, "Forbid the future (above the diagonal), not the past.",
                lambda n: ref.causal_mask(n).T.copy()),
        Mistake("boolean mask instead of additive", 6, "Return 0 for allowed and −inf for forbidden pairs, as floats.",
                lambda n: np.isinf(ref.causal_mask(n)).astype(np.float64)),
    ],
    "padding_mask": [
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda lengths, n: -ref.padding_mask(lengths, n)),
        Mistake("padding mask off by one", 6, "Position `length` itself is padding: forbid j ≥ length.",
                lambda lengths, n: ref.padding_mask(np.minimum(np.asarray(lengths) + 1, n), n)),
        Mistake("missing query axis", 6, "Return shape (b, 1, n) so the mask broadcasts over every query.",
                lambda lengths, n: ref.padding_mask(lengths, n)[:, 0, :]),
    ],
    "block_mask": [
        Mistake("allowed read by column", 6, "allowed[a][b] says whether group a (the row, asking) may look at group b.",
                lambda sizes, allowed: ref.block_mask(sizes, np.asarray(allowed).T)),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda sizes, allowed: -ref.block_mask(sizes, allowed)),
    ],
    "blockwise_attention": [
        Mistake("accumulator not rescaled", 7,
                "When a block raises the running maximum, multiply the running sum and the accumulator by exp(old max − new max).",
                lambda *a, **k: _blockwise_with(*a, **k, rescale=False)),
        Mistake("no final division by the running sum", 7, "Divide the accumulator by the running sum at the end.",
                lambda *a, **k: _blockwise_with(*a, **k, divide=False)),
        Mistake(FULL_GRID, 7, "Its values are right but its memory grows with n²; "
                "the memory-measured hidden case names it.", None),
    ],
    "projection_flops": [
        Mistake("factor 4 missing", 7, "There are four projections (Q, K, V and the output), each n·d².",
                lambda n, d: n * d * d),
    ],
    "score_flops": [
        Mistake("factor 2 missing", 7, "The grid is paid twice: once for the scores Q Kᵀ, once for mixing the values.",
                lambda n, d: n * n * d),
    ],
    "attention_share": [
        Mistake("factor 2 missing", 7, "Scores and mixing cost 2·n²·d together.",
                lambda n, d: n * n * d / (n * n * d + 4 * n * d * d)),
        Mistake("factor 4 missing", 7, "The projections cost 4·n·d² (four matrices).",
                lambda n, d: 2 * n * n * d / (2 * n * n * d + n * d * d)),
        Mistake("ratio instead of share", 7, "The share is grid / (grid + projections), not grid / projections.",
                lambda n, d: 2 * n * n * d / (4 * n * d * d)),
    ],
    "crossover_length": [
        Mistake("factor 2 missing", 7, "Setting 4·n·d² = 2·n²·d gives n = 2d.", lambda d: d),
    ],
    "score_grid_bytes": [
        Mistake("in MB instead of bytes", 7, "Return bytes; 1 MB = 10⁶ bytes but 1 MiB = 1,048,576 bytes.",
                lambda n, h, b=2: n * n * h * b / 1e6),
        Mistake("in MiB instead of bytes", 7, "Return bytes, not MiB (1 MiB = 1,048,576 bytes).",
                lambda n, h, b=2: n * n * h * b / 2**20),
        Mistake("heads forgotten", 7, "Every head has a score grid of its own.", lambda n, h, b=2: n * n * b),
    ],
    "attention_params": [
        Mistake("output projection forgotten", 5, "W_o is d × d too: 4·d² in all.", lambda d, h: 3 * d * d),
        Mistake("divided by the number of heads", 5, "Cutting into heads does not change the count: 4·d².",
                lambda d, h: 4 * d * d // h),
    ],
}


def _lead_no_max(lead):
    lead = np.asarray(lead, dtype=float) if np.asarray(lead).dtype.kind != "f" else np.asarray(lead)
    return np.exp(lead) / (np.exp(lead) + 1)


def _padding_leak_with(weights, lengths, *, every_query=False, mean=False):
    weights, lengths = np.asarray(weights, dtype=np.float64), np.asarray(lengths)
    n = weights.shape[-1]
    position = np.arange(n)
    on_padding = np.where(position[None, None, :] >= lengths[:, None, None], weights, 0.0).sum(axis=-1)
    real = np.ones_like(on_padding, dtype=bool) if every_query else position[None, :] < lengths[:, None]
    if mean:
        return np.where(real, on_padding, 0.0).sum(axis=-1) / real.sum(axis=-1)
    return np.where(real, on_padding, 0.0).max(axis=-1)


def _changed_rows(X, W_q, W_k, W_v, j, mask=None):
    X = np.asarray(X, dtype=np.float64)
    changed = X.copy()
    changed[j] += 1.0
    before, _ = ref.attention(*ref.project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = ref.attention(*ref.project_qkv(changed, W_q, W_k, W_v), mask)
    return (before != after).any(axis=-1)


def _hull_excess_with(O, V, allowed=None, *, every_row=False, signed=False):
    O, V = np.asarray(O, dtype=np.float64), np.asarray(V, dtype=np.float64)
    if allowed is None or every_row:
        allowed = np.ones((O.shape[0], V.shape[0]), dtype=bool)
    visible = np.asarray(allowed)[:, :, None]
    outside = np.maximum(O - np.where(visible, V[None], -np.inf).max(axis=1),
                         np.where(visible, V[None], np.inf).min(axis=1) - O)
    return outside.max(axis=1) if signed else np.maximum(outside, 0.0).max(axis=1)


def _self_preference_with(S, *, by_column=False, strict=False, count=False):
    S = np.asarray(S)
    best = S.max(axis=0 if by_column else 1)
    own = np.diagonal(S)
    wins = own > np.where(np.eye(len(S), dtype=bool), -np.inf, S).max(axis=0 if by_column else 1) if strict \
        else own >= best
    return float(np.abs(S - S.T).max()), float(wins.sum() if count else wins.mean())


# Exercises on the chapter's claims (sections 2 to 7) and notebook 08's questions answered by computing.
MISTAKES.update({
    "self_preference": [
        Mistake("columns instead of rows", 2, "Row i holds token i's scores: compare S[i, i] with the largest of row i.",
                lambda S: _self_preference_with(S, by_column=True)),
        Mistake("a tie not counted", 2, "A row whose own score ties the largest still prefers itself: use >=.",
                lambda S: _self_preference_with(S, strict=True)),
        Mistake("a count instead of a fraction", 2, "Divide the number of rows that prefer themselves by n.",
                lambda S: _self_preference_with(S, count=True)),
    ],
    "lead_share": [
        Mistake("the trailing key's share", 4, "Return the weight of the key that is ahead: e^lead / (e^lead + 1).",
                lambda lead: 1 - ref.lead_share(lead)),
        Mistake("softmax without subtracting the row maximum", 4,
                "e^lead overflows to inf for a large lead (inf/inf is NaN): subtract the larger score first.",
                _lead_no_max),
        Mistake("raised but not divided by the total", 4, "Divide e^lead by the total e^lead + e^0 of both keys.",
                lambda lead: np.exp(np.asarray(lead, dtype=float))),
    ],
    "layer_counts": [
        Mistake("heads forgotten", 4, "Every head has its own n × n score grid: n_heads · n² in all.",
                lambda n, d, h: (n * d, n * n, n * n)),
        Mistake("score grid of n × d_k", 4, "A score grid has one number per pair of tokens: n × n, whatever d is.",
                lambda n, d, h: (n * d, n * (d // h), n * d)),
    ],
    "pattern_count": [
        Mistake("layers plus heads", 5, "Every layer has its own heads: multiply, do not add.", lambda L, h: L + h),
        Mistake("one layer only", 5, "Each of the n_layers layers has n_heads patterns.", lambda L, h: h),
    ],
    "first_changed_output": [
        Mistake("the last unchanged position", 6, "Return the first position that changed, not the one before it.",
                lambda *a, **k: int(np.argmax(_changed_rows(*a, **k))) - 1 if _changed_rows(*a, **k).any()
                else len(a[0]) - 1),
        Mistake("how many outputs changed", 6, "Return the first position whose output changed, not the count.",
                lambda *a, **k: int(_changed_rows(*a, **k).sum())),
    ],
    "padding_leak": [
        Mistake("padding queries counted too", 6, "Only real queries (i < length) matter: padding rows are thrown away.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, every_query=True)),
        Mistake("mean instead of the largest", 6, "Take the largest leak over the real queries: one bad row is enough.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, mean=True)),
    ],
    "mlp_flops": [
        Mistake("inner width d instead of 4d", 7, "The MLP widens each token to 4·d and back: 2 · n · d · 4d.",
                lambda n, d: 2 * n * d * d),
        Mistake("one of the two matrices", 7, "There are two matrices, d → 4d and 4d → d: 8·n·d² in all.",
                lambda n, d: 4 * n * d * d),
    ],
    "grid_over_mlp": [
        Mistake("ratio inverted", 7, "Divide the grid's work by the MLP's, not the other way round.",
                lambda n, d: 4 * d / n),
        Mistake("factor 2 missing", 7, "The grid is paid twice, scores and mixing: 2·n²·d.",
                lambda n, d: n * n * d / (8 * n * d * d)),
    ],
    "hull_excess": [
        Mistake("every value row counted, masked ones too", 4,
                "Only the value rows a query may see (allowed[i]) bound its output.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, every_row=True)),
        Mistake("signed distance", 4, "Inside the box the excess is 0.0, not negative: clip at zero.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, signed=True)),
    ],
    "leaked_targets": [
        Mistake("the token itself instead of the next", 6,
                "Position i is trained to predict token i + 1: look at mask[i, i + 1].",
                lambda mask: int(np.isfinite(np.diagonal(np.asarray(mask, dtype=float))).sum())),
        Mistake("every later token counted", 6, "Count positions, one per i, whose next token i + 1 is allowed.",
                lambda mask: int(np.isfinite(np.triu(np.asarray(mask, dtype=float), k=1)
                                             + np.tril(np.full(np.shape(mask), -np.inf))).sum())),
    ],
    "score_variance": [
        Mistake("standard deviation instead of variance", 3, "Return the variance (np.var), not the spread (np.std).",
                lambda Q, K: tuple(math.sqrt(v) for v in ref.score_variance(Q, K))),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide the scores by √d_k before taking the variance.",
                lambda Q, K: (lambda r: (r[0], r[0] / np.shape(Q)[-1] ** 2))(ref.score_variance(Q, K))),
    ],
})
