"""Mistake: the token before instead of the next."""

import math

import numpy as np


def leaked_targets(X, mask):
    X = np.asarray(X, dtype=float)
    mask = np.asarray(mask, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    n = X.shape[0]
    if mask.shape != (n, n):
        raise ValueError(f"mask must be ({n}, {n}), got shape {mask.shape}")

    def softmax(S):
        top = np.max(S, axis=-1, keepdims=True)
        top[np.isneginf(top)] = 0.0
        e = np.exp(S - top)
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0)

    def out(T):
        return softmax(T @ T.T / math.sqrt(T.shape[-1]) + mask) @ T

    first = out(X)
    leaks = 0
    for i in range(1, n):  # what position i was given just before it
        other = X.copy()
        other[i - 1] = other[i - 1] + 1.0
        if np.any(out(other)[i] != first[i]):
            leaks += 1
    return leaks
