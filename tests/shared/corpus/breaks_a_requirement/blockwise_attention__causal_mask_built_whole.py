"""Breaks: never build an array with `n_q × n_k` cells, not the causal mask. It walks the keys in blocks,
but with `causal` it first builds the whole boolean mask (one byte a cell) and cuts each block's part from it.
Also makes: builds the full n × n grid (the mask is one, if of booleans: the requirement it breaks is that mistake)."""

import math

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    q, k, v = np.asarray(Q), np.asarray(K), np.asarray(V)
    out_type = np.result_type(q, k, v) if all(x.dtype.kind == "f" for x in (q, k, v)) else np.float64
    q, k, v = q.astype(out_type), k.astype(out_type), v.astype(out_type)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError("Q and K need the same width")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError("K and V need the same number of rows")
    if type(block_size) is bool or not isinstance(block_size, (int, np.integer)) or block_size <= 0:
        raise ValueError("block_size must be a positive whole number")
    rows, keys = q.shape[-2], k.shape[-2]
    later = (np.arange(keys)[None, :] > np.arange(rows)[:, None]) if causal else None  # the whole mask, at once
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    best = np.full(lead + (rows, 1), -np.inf, out_type)
    weight = np.zeros(lead + (rows, 1), out_type)
    result = np.zeros(lead + (rows, v.shape[-1]), out_type)
    for lo in range(0, keys, block_size):
        hi = min(lo + block_size, keys)
        scores = (q @ np.swapaxes(k[..., lo:hi, :], -1, -2) / math.sqrt(q.shape[-1])).astype(out_type)
        if later is not None:
            scores = np.where(later[:, lo:hi], -np.inf, scores)
        new_best = np.maximum(best, scores.max(axis=-1, keepdims=True))
        with np.errstate(invalid="ignore"):
            shrink = np.where(np.isfinite(best), np.exp(best - new_best), 0.0).astype(out_type)
            p = np.where(np.isfinite(scores), np.exp(scores - new_best), 0.0).astype(out_type)
        weight = weight * shrink + p.sum(axis=-1, keepdims=True)
        result = result * shrink + p @ v[..., lo:hi, :]
        best = new_best
    return result / weight
