"""softmax that copies S first, then takes the row maximum out in place, in its own copy."""

import numpy as np


def softmax(S, axis=-1):
    S = np.array(S, copy=True)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold real numbers, got dtype {S.dtype}")
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    top = np.max(S, axis=axis, keepdims=True) if S.ndim else S.copy()
    top = np.where(np.isneginf(top), 0, top).astype(S.dtype, copy=False)
    S -= top  # its own copy
    e = np.exp(S)
    total = np.sum(e, axis=axis, keepdims=True) if S.ndim else e
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
