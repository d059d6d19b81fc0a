"""Wrong only in: dtype (float32 scores give float64 weights); the issue's example."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S, dtype=np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    top = np.max(S, axis=axis, keepdims=True) if S.ndim else S
    top = np.where(np.isneginf(top), 0, top)
    e = np.exp(S - top)
    total = np.sum(e, axis=axis, keepdims=True) if S.ndim else e
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
