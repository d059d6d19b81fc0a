"""Mistake: one norm of every grid together."""

import math

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k), got {Q.shape} and {K.shape}")
    out = []
    for s in (np.einsum("td,tkd->tk", Q, K), np.einsum("td,tkd->tk", Q, K) / math.sqrt(Q.shape[1])):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        J = np.stack([np.diag(row) - np.outer(row, row) for row in p])
        out.append(float(np.linalg.norm(J)))  # no axis: one number for the whole stack
    return out[0], out[1]
