"""Mistake: a count instead of a fraction."""

import numpy as np


def self_preference(S):
    S = np.asarray(S)
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square grid, got {S.shape}")
    return float(np.abs(S - S.T).max()), float(np.sum(np.diagonal(S) >= S.max(axis=1)))
