"""Breaks: or `n` when no row changed."""

import numpy as np


def first_changed_output(X, W_q, W_k, W_v, j, mask=None):
    X = np.asarray(X, dtype=float)
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < len(X):
        raise ValueError(f"j must be a position of X, got {j!r}")

    def out(T):
        Q, K, V = T @ W_q, T @ W_k, T @ W_v
        S = Q @ K.T / np.sqrt(K.shape[-1])
        if mask is not None:
            S = S + mask
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ V

    changed = X.copy()
    changed[j] += 1.0
    moved = np.flatnonzero((out(X) != out(changed)).any(axis=-1))
    return int(moved[0]) if moved.size else -1
