"""Breaks: Compute in float64."""

import math

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k), got {Q.shape} and {K.shape}")
    raw = np.einsum("td,tkd->tk", Q, K)  # float32 stays float32
    sizes = []
    for s in (raw, raw / Q.dtype.type(math.sqrt(Q.shape[1]))):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        J = p[..., :, None] * np.eye(s.shape[-1], dtype=p.dtype) - p[..., :, None] * p[..., None, :]
        sizes.append(float(np.linalg.norm(J, axis=(-2, -1)).mean()))
    return sizes[0], sizes[1]
