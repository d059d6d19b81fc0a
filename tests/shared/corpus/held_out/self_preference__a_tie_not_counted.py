"""Intended: a tie not counted."""

import numpy as np


def self_preference(S):
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.size == 0:
        raise ValueError('S')
    rows = sum(all(S[i, i] > S[i, j] for j in range(len(S)) if j != i) for i in range(len(S)))
    return float(np.abs(S - S.T).max()), rows / len(S)
