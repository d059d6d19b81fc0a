"""Mistake: an all-forbidden row not handled."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind != 'f':
        S = S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError('axis')
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
