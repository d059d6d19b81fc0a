"""Mistake: how many outputs changed."""

import numpy as np


def first_changed_output(X, W_q, W_k, W_v, j, mask=None):
    X = np.asarray(X, dtype=np.float64)
    if not isinstance(j, (int, np.integer)) or not 0 <= j < len(X):
        raise ValueError(f"bad position {j!r}")
    changed = X.copy()
    changed[j] += 1.0
    before, _ = attention(*project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = attention(*project_qkv(changed, W_q, W_k, W_v), mask)
    return int((before != after).any(axis=1).sum())
