"""Breaks: never change the caller's `X`."""

import numpy as np


def leaked_targets(X, mask):
    if np.ndim(X) != 2 or np.shape(mask) != (len(X), len(X)):
        raise ValueError(f"X must be (n, d) and mask (n, n), got {np.shape(X)} and {np.shape(mask)}")

    def attend(T):
        S = T @ T.T / np.sqrt(T.shape[1]) + mask
        top = S.max(axis=1, keepdims=True)
        e = np.exp(S - np.where(np.isneginf(top), 0, top))
        total = e.sum(axis=1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ T

    before = attend(X)
    count = 0
    for i in range(len(X) - 1):
        X[i + 1] += 1.0  # in place
        count += int((attend(X)[i] != before[i]).any())
        X[i + 1] -= 1.0  # taken off again, but x + 1 - 1 is not always x
    return count
