"""Wrong: the size of the weights p, not of their Jacobian diag(p) − p pᵀ (no known mistake)."""

import math

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k), got {Q.shape} and {K.shape}")
    raw = np.einsum("td,tkd->tk", Q, K)
    sizes = []
    for s in (raw, raw / math.sqrt(Q.shape[1])):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        sizes.append(float(np.linalg.norm(p, axis=-1).mean()))
    return sizes[0], sizes[1]
