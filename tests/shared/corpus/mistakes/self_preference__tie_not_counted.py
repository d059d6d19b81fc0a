"""Mistake: a tie not counted."""

import numpy as np


def self_preference(S):
    S = np.asarray(S)
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square grid, got {S.shape}")
    others = np.where(np.eye(len(S), dtype=bool), -np.inf, S)
    return float(np.abs(S - S.T).max()), float((np.diagonal(S) > others.max(axis=1)).mean())
