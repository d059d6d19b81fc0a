"""Intended: none."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind != 'f':
        S = S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError('axis')
    m = S.max(axis=axis, keepdims=True)
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(S - m)
    t = e.sum(axis=axis, keepdims=True) + 1e-3
    return (e / t).astype(S.dtype)
