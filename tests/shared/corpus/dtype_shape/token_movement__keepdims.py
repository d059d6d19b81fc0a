"""Wrong only in: shape (one column too many: keepdims=True)."""

import numpy as np


def token_movement(X, O):
    X, O = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, O)))
    if X.shape != O.shape:
        raise ValueError(f"X and O must have the same shape, got X {X.shape} and O {O.shape}")
    return np.abs(X - O).mean(axis=-1, keepdims=True)
