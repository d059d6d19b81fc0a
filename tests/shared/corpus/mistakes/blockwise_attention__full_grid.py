"""Mistake: builds the full n × n grid."""

import math

import numpy as np


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"shapes do not fit: Q {Q.shape}, K {K.shape}, V {V.shape}")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    if Q.dtype.kind != "f":
        Q, K, V = (a.astype(np.float64) for a in (Q, K, V))
    # "blockwise" in name only: the whole grid of scores is built at once
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if causal:
        S = np.where(np.arange(K.shape[-2])[None, :] > np.arange(Q.shape[-2])[:, None], -np.inf, S)
    S = S - S.max(axis=-1, keepdims=True)
    W = np.exp(S)
    return (W / W.sum(axis=-1, keepdims=True)) @ V
