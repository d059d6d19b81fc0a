"""Breaks: softmax along `axis`.

Also makes: an all-forbidden row not handled (−inf − (−inf) is NaN on a row whose every key is forbidden), a
second slip its grader names beside the first.
"""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
