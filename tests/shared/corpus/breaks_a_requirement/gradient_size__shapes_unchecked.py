"""Breaks: Raise a `ValueError` when `Q` is not `(t, d_k)`."""

import math

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    raw = (K @ Q[..., :, None])[..., 0]  # NumPy broadcasts one query over every key set
    sizes = []
    for s in (raw, raw / math.sqrt(Q.shape[-1])):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        J = p[..., :, None] * np.eye(s.shape[-1]) - p[..., :, None] * p[..., None, :]
        sizes.append(float(np.linalg.norm(J, axis=(-2, -1)).mean()))
    return sizes[0], sizes[1]
