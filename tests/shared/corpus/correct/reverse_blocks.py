"""Correct: blockwise attention visiting the key blocks from last to first."""

import math

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have one row per key")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    dtype = np.result_type(Q, K, V)
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    Q = Q / math.sqrt(Q.shape[-1])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    best = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    starts = list(range(0, n_k, block_size))
    for start in reversed(starts):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2)
        if causal:
            s = np.where(np.arange(start, stop)[None, :] > np.arange(n_q)[:, None], -np.inf, s)
        new_best = np.maximum(best, s.max(axis=-1, keepdims=True))
        # a query that has seen only forbidden keys so far keeps best = -inf: shift by 0 instead
        shift = np.where(np.isneginf(new_best), 0, new_best)
        rescale = np.exp(best - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        best = new_best
    return np.divide(acc, total, out=np.zeros_like(acc), where=total > 0)
