"""Breaks: (exact comparison."""

import numpy as np


def leaked_targets(X, mask):
    X, mask = np.asarray(X, dtype=np.float64), np.asarray(mask, dtype=np.float64)
    if X.ndim != 2 or mask.shape != (len(X), len(X)):
        raise ValueError(f"X must be (n, d) and mask (n, n), got {X.shape} and {mask.shape}")

    def attend(T):
        S = T @ T.T / np.sqrt(T.shape[1]) + mask
        top = S.max(axis=1, keepdims=True)
        e = np.exp(S - np.where(np.isneginf(top), 0, top))
        total = e.sum(axis=1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ T

    before = attend(X)
    count = 0
    for i in range(len(X) - 1):
        changed = X.copy()
        changed[i + 1] += 1.0
        count += int(not np.allclose(attend(changed)[i], before[i]))  # a tiny change is read as none
    return count
