"""Mistake: the bound instead of the measurement."""

import numpy as np


def head_score_ranks(X, W_q, W_k, n_heads):
    X, W_q, W_k = np.asarray(X), np.asarray(W_q), np.asarray(W_k)
    if X.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[1] or W_q.shape[1] % n_heads:
        raise ValueError("shapes do not fit")
    return np.full(n_heads, W_q.shape[1] // n_heads)
