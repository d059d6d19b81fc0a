"""Mistake: softmax without subtracting the row maximum."""

import numpy as np


def softmax_jacobian(s):
    s = np.asarray(s)
    if s.ndim < 1:
        raise ValueError("s must be a row of scores")
    s = s if s.dtype.kind == "f" else s.astype(np.float64)
    e = np.exp(s)
    p = e / e.sum(axis=-1, keepdims=True)
    return p[..., None] * np.eye(s.shape[-1], dtype=s.dtype) - p[..., :, None] * p[..., None, :]
