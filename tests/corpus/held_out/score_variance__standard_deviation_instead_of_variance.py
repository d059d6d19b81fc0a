"""Intended: standard deviation instead of variance."""

import numpy as np


def score_variance(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.ndim != 2 or Q.shape != K.shape:
        raise ValueError('shapes')
    raw = (Q.astype(np.float64) * K).sum(axis=-1)
    return float(raw.std()), float((raw / np.sqrt(Q.shape[1])).std())
