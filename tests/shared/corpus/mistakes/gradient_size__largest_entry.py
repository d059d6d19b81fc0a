"""Mistake: the largest entry instead of the size."""

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"shapes do not fit: Q {Q.shape}, K {K.shape}")
    raw = np.einsum("td,tkd->tk", Q, K)
    sizes = []
    for s in (raw, raw / np.sqrt(Q.shape[1])):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        J = p[..., :, None] * np.eye(s.shape[-1]) - p[..., :, None] * p[..., None, :]
        sizes.append(float(np.abs(J).max(axis=(-2, -1)).mean()))
    return tuple(sizes)
