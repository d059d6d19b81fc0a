"""Mistake: the mean difference instead of the largest."""

import numpy as np


def prefix_gaps(Q, K, V, mask):
    Q, K, V, mask = (np.asarray(a) for a in (Q, K, V, mask))
    n = len(Q)
    if Q.ndim != 2 or K.shape != Q.shape or V.ndim != 2 or len(V) != n or mask.shape != (n, n):
        raise ValueError(f"shapes do not fit: {Q.shape}, {K.shape}, {V.shape}, {mask.shape}")
    whole, _ = attention(Q, K, V, mask)
    gaps = np.zeros(n, dtype=whole.dtype)
    for i in range(n):
        p = i + 1
        alone, _ = attention(Q[:p], K[:p], V[:p], mask[:p, :p])
        gaps[i] = np.abs(whole[i] - alone[-1]).mean()
    return gaps
