"""Mistake: columns instead of rows."""

import numpy as np


def self_preference(S):
    S = np.asarray(S)
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square grid, got {S.shape}")
    # compares each diagonal entry with the largest of its column
    return float(np.abs(S - S.T).max()), float((np.diagonal(S) >= S.max(axis=0)).mean())
