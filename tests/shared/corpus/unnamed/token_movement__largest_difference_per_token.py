"""Wrong: the largest absolute difference of a token, not the mean (no known mistake)."""

import numpy as np


def token_movement(X, O):
    X, O = np.asarray(X), np.asarray(O)
    if X.dtype.kind not in "fiu" or O.dtype.kind not in "fiu":
        raise ValueError(f"X and O must hold real numbers, got {X.dtype} and {O.dtype}")
    if X.ndim < 2 or X.shape != O.shape:
        raise ValueError(f"X and O must be (..., n, d) of one shape, got X {X.shape} and O {O.shape}")
    X = X if X.dtype.kind == "f" else X.astype(np.float64)
    O = O if O.dtype.kind == "f" else O.astype(np.float64)
    return np.abs(X - O).max(axis=-1)
