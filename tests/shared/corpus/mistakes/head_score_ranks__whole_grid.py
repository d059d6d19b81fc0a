"""Mistake: the whole grid's rank."""

import numpy as np


def head_score_ranks(X, W_q, W_k, n_heads):
    X, W_q, W_k = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, W_q, W_k)))
    if X.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[1] or W_q.shape[1] % n_heads:
        raise ValueError("shapes do not fit")
    rank = np.linalg.matrix_rank((X @ W_q) @ (X @ W_k).T)
    return np.array([rank] * n_heads)
