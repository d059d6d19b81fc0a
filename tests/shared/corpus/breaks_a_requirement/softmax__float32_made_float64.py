"""Breaks: Float32 stays float32.

Also makes: an all-forbidden row not handled (its row maximum of an all −inf row is −inf, so that row is NaN).
"""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S, dtype=np.float64)
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
