"""Breaks: never build an array with `n_q × n_k` cells, not the causal mask. It walks the keys in blocks,
but with `causal` it first builds the whole boolean mask (one byte a cell) and cuts each block's part from it.
Also makes: builds the full n × n grid (the mask is one, if of booleans: the requirement it breaks is that mistake)."""

import math

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (Q, K, V)))
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"shapes do not fit: Q {Q.shape}, K {K.shape}, V {V.shape}")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    dtype = np.result_type(Q, K, V)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    hidden = np.arange(n_k)[None, :] > np.arange(n_q)[:, None] if causal else None
    top = np.full((*batch, n_q, 1), -np.inf, dtype)
    total = np.zeros((*batch, n_q, 1), dtype)
    mix = np.zeros((*batch, n_q, V.shape[-1]), dtype)
    for start in range(0, n_k, block_size):
        keys = slice(start, start + block_size)
        s = (Q @ np.swapaxes(K[..., keys, :], -1, -2) / math.sqrt(Q.shape[-1])).astype(dtype)
        if causal:
            s = np.where(hidden[:, keys], -np.inf, s)
        new_top = np.maximum(top, s.max(axis=-1, keepdims=True))
        with np.errstate(invalid="ignore"):
            shrink = np.where(np.isfinite(top), np.exp(top - new_top), 0.0).astype(dtype)
            p = np.where(np.isfinite(s), np.exp(s - new_top), 0.0).astype(dtype)
        total = total * shrink + p.sum(axis=-1, keepdims=True)
        mix = mix * shrink + p @ V[..., keys, :].astype(dtype)
        top = new_top
    return mix / total
