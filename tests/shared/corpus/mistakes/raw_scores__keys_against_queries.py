"""Mistake: keys against queries."""

import numpy as np


def raw_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.dtype.kind not in "fiu" or K.dtype.kind not in "fiu":
        raise ValueError(f"Q and K must hold numbers, got {Q.dtype} and {K.dtype}")
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must be (..., n, d_k) with the same d_k, got {Q.shape} and {K.shape}")
    if Q.dtype.kind != "f":
        Q = Q.astype(np.float64)
    if K.dtype.kind != "f":
        K = K.astype(np.float64)
    return K @ np.swapaxes(Q, -1, -2)
