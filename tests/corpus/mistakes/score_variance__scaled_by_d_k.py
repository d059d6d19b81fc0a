"""Mistake: scaled by d_k instead of √d_k."""

import numpy as np


def score_variance(Q, K):
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or Q.shape != K.shape:
        raise ValueError("Q and K must both be (t, d_k)")
    raw = (Q * K).sum(axis=1)
    return float(raw.var()), float((raw / Q.shape[1]).var())
