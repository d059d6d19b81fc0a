"""Breaks: float32 in gives float32 out."""

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError("shapes")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError("block_size")
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    top = np.full((*lead, n_q, 1), -np.inf)
    total = np.zeros((*lead, n_q, 1))
    acc = np.zeros((*lead, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        S = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) / np.sqrt(Q.shape[-1])
        if causal:
            S = np.where(np.arange(start, start + S.shape[-1])[None, :] > np.arange(n_q)[:, None], -np.inf, S)
        new_top = np.maximum(top, S.max(axis=-1, keepdims=True))
        safe = np.where(np.isfinite(new_top), new_top, 0.0)
        with np.errstate(invalid="ignore"):
            scale = np.where(np.isfinite(top), np.exp(top - safe), 0.0)
        e = np.exp(S - safe)
        total = total * scale + e.sum(axis=-1, keepdims=True)
        acc = acc * scale + e @ V[..., start:start + block_size, :]
        top = new_top
    return acc / total
