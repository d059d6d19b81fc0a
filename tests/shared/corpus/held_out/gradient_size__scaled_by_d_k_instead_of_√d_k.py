"""Intended: scaled by d_k instead of √d_k."""

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != len(Q) or K.shape[2] != Q.shape[1]:
        raise ValueError('shapes')
    s = (K.astype(np.float64) @ Q.astype(np.float64)[:, :, None])[:, :, 0]

    def norm(x):
        p = np.exp(x - x.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        return np.linalg.norm(np.einsum("ti,ij->tij", p, np.eye(p.shape[1])) - np.einsum("ti,tj->tij", p, p),
                              axis=(1, 2)).mean()

    return float(norm(s)), float(norm(s / Q.shape[1]))
