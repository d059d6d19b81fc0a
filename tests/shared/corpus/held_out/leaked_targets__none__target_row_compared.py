"""Intended: none."""

import numpy as np


def leaked_targets(X, mask):
    X, mask = np.asarray(X, dtype=float), np.asarray(mask, dtype=float)
    if X.ndim != 2 or mask.shape != (len(X), len(X)):
        raise ValueError('X or mask')

    def attend(T):
        S = T @ T.T / np.sqrt(T.shape[1]) + mask
        S = S - np.where(np.isneginf(S.max(1, keepdims=True)), 0, S.max(1, keepdims=True))
        e = np.exp(S)
        t = e.sum(1, keepdims=True)
        return np.divide(e, t, out=np.zeros_like(e), where=t > 0) @ T

    before = attend(X)
    n = 0
    for i in range(len(X) - 1):
        Y = X.copy()
        Y[i + 1] += 1
        n += int((attend(Y)[i + 1] != before[i + 1]).any())  # the target's own row, not row i
    return n
