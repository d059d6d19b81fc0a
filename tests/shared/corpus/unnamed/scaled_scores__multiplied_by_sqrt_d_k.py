"""Wrong: the scores multiplied by √d_k instead of divided (no known mistake)."""

import math

import numpy as np


def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.dtype.kind not in "fiu" or K.dtype.kind not in "fiu" or Q.ndim < 2 or K.ndim < 2:
        raise ValueError(f"Q and K must be (..., n, d_k) arrays of numbers, got {Q.shape} and {K.shape}")
    Q = Q if Q.dtype.kind == "f" else Q.astype(np.float64)
    K = K if K.dtype.kind == "f" else K.astype(np.float64)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share d_k, got Q {Q.shape} and K {K.shape}")
    return Q @ np.swapaxes(K, -1, -2) * math.sqrt(Q.shape[-1])
