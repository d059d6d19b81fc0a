"""Mistake: scaled by the full width."""

import math

import numpy as np


def _checked(X, W_q, W_k, n_heads):
    X, W_q, W_k = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, W_q, W_k)))
    if X.ndim < 2 or W_q.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[-1]:
        raise ValueError(f"W_q and W_k must both be (d, d_h), got X {X.shape}, W_q {W_q.shape}, W_k {W_k.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1 or W_q.shape[1] % n_heads:
        raise ValueError(f"n_heads = {n_heads!r} must be a positive integer dividing {W_q.shape[1]}")
    return X, W_q, W_k


def _split(M, n_heads):
    return np.swapaxes(M.reshape(*M.shape[:-1], n_heads, M.shape[-1] // n_heads), -2, -3)


def _softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def head_patterns(X, W_q, W_k, n_heads):
    X, W_q, W_k = _checked(X, W_q, W_k, n_heads)
    Q, K = _split(X @ W_q, n_heads), _split(X @ W_k, n_heads)
    return _softmax(Q @ np.swapaxes(K, -1, -2) / math.sqrt(W_q.shape[1]))
