"""Breaks: never change the caller's `X`."""

import numpy as np


def first_changed_output(X, W_q, W_k, W_v, j, mask=None):
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < len(X):
        raise ValueError(f"j must be a position of X, got {j!r}")

    def out(T):
        Q, K, V = T @ W_q, T @ W_k, T @ W_v
        S = Q @ K.T / np.sqrt(K.shape[-1])
        if mask is not None:
            S = S + mask
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ V

    before = out(X)
    X[j] += 1.0  # in place
    moved = np.flatnonzero((before != out(X)).any(axis=-1))
    return int(moved[0]) if moved.size else len(X)
