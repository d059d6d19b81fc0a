"""Mistake: sum instead of mean."""

import numpy as np


def token_movement(X, O):
    X, O = np.asarray(X), np.asarray(O)
    if X.dtype.kind not in "fiu" or O.dtype.kind not in "fiu":
        raise ValueError(f"X and O must hold numbers, got {X.dtype} and {O.dtype}")
    if X.ndim < 2 or X.shape != O.shape:
        raise ValueError(f"X and O must both be (..., n, d), got {X.shape} and {O.shape}")
    if X.dtype.kind != "f":
        X = X.astype(np.float64)
    if O.dtype.kind != "f":
        O = O.astype(np.float64)
    return np.abs(X - O).sum(axis=-1)
