"""Mistake: softmax over the wrong axis."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold numbers, got dtype {S.dtype}")
    if S.dtype.kind != "f":
        S = S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    shape = S.shape
    # bring the axis to normalise to the front, work on the last one, move it back
    T = np.moveaxis(np.atleast_1d(S), axis, 0)
    top = T.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top).astype(T.dtype)
    e = np.exp(T - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return np.moveaxis(weights, 0, axis).reshape(shape)
