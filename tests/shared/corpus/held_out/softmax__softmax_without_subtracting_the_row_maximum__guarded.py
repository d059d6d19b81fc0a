"""Intended: softmax without subtracting the row maximum."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind != 'f':
        S = S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError('axis')
    e = np.exp(S)
    t = e.sum(axis=axis, keepdims=True)
    return np.divide(e, t, out=np.zeros_like(e), where=t > 0)
