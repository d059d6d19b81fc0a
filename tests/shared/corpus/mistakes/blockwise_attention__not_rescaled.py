"""Mistake: accumulator not rescaled."""

import math

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be a (..., n, d) array of numbers, got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share d_k, got Q {Q.shape} and K {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have one row per key, got K {K.shape} and V {V.shape}")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    dtype = np.result_type(Q, K, V)
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    Q = Q / math.sqrt(Q.shape[-1])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)   # running max
    l = np.zeros((*batch, n_q, 1), dtype=dtype)           # running sum of exponentials
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    rows = np.arange(n_q)[:, None]
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2)
        if causal:
            s = np.where(np.arange(start, stop)[None, :] > rows, -np.inf, s)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(m_new), 0, m_new)
        p = np.exp(s - shift)
        l = l + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:stop, :]
        m = m_new
    return np.divide(acc, l, out=np.zeros_like(acc), where=l > 0)
