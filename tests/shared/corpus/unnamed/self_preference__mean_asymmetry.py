"""Wrong: the mean |S[i, j] − S[j, i]| as the asymmetry, not the largest (no known mistake)."""

import numpy as np


def self_preference(S):
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square grid, got shape {S.shape}")
    asymmetry = float(np.abs(S - S.T).mean())
    return asymmetry, float((np.diagonal(S) >= S.max(axis=1)).mean())
