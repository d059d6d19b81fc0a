"""Wrong only in: dtype (np.sqrt(d_k) turns float32 scores into float64)."""

import numpy as np


def scaled_scores(Q, K):
    Q, K = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (Q, K)))
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must be (..., n, d_k) with one d_k, got Q {Q.shape} and K {K.shape}")
    return Q @ np.swapaxes(K, -1, -2) / np.sqrt(np.float64(Q.shape[-1]))
