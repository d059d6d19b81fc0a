"""Mistake: scaled by d_k instead of √d_k."""

import numpy as np


def gradient_size(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k), got {Q.shape} and {K.shape}")

    def size(s):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        J = p[:, :, None] * np.eye(s.shape[-1]) - p[:, :, None] * p[:, None, :]
        return float(np.sqrt((J ** 2).sum(axis=(1, 2))).mean())

    raw = np.einsum("td,tkd->tk", Q, K)
    return size(raw), size(raw / Q.shape[1])
