"""Mistake: softmax without subtracting the row maximum."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold numbers, got dtype {S.dtype}")
    if S.dtype.kind != "f":
        S = S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    e = np.exp(S)
    return e / e.sum(axis=axis, keepdims=True)
