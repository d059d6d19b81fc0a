"""Mistake: scaled by d_k instead of √d_k."""

import numpy as np


def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.dtype.kind not in "fiu" or K.dtype.kind not in "fiu":
        raise ValueError(f"Q and K must hold numbers, got {Q.dtype} and {K.dtype}")
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must be (..., n, d_k) with the same d_k, got {Q.shape} and {K.shape}")
    if Q.dtype.kind != "f":
        Q = Q.astype(np.float64)
    if K.dtype.kind != "f":
        K = K.astype(np.float64)
    d_k = Q.shape[-1]
    return Q @ np.swapaxes(K, -1, -2) / d_k
