"""Wrong: each exponential divided by the row's largest, not by the row's sum (no known mistake)."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold real numbers, got {S.dtype}")
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    top = np.max(S, axis=axis, keepdims=True) if S.ndim else S
    top = np.where(np.isneginf(top), 0, top).astype(S.dtype)
    e = np.exp(S - top)
    largest = np.max(e, axis=axis, keepdims=True) if S.ndim else e
    return np.divide(e, largest, out=np.zeros_like(e), where=largest > 0)
