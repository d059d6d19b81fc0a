"""Mistake: weights returned transposed."""

import math

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be a (..., n, d) array of numbers, got {a.dtype} {a.shape}")
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share d_k, got Q {Q.shape} and K {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have one row per key, got K {K.shape} and V {V.shape}")
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype.kind not in "fiu" or mask.ndim < 1:
            raise ValueError(f"mask must be an array of numbers, got {mask.dtype} {mask.shape}")
        if mask.shape[-1] not in (1, n_k) or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q)):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n_q}, {n_k})")
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + mask.astype(scores.dtype)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top).astype(scores.dtype)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return weights @ V.astype(weights.dtype), np.swapaxes(weights, -1, -2)
