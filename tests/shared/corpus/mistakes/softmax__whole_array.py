"""Mistake: softmax over the whole array."""

import numpy as np


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind != "f":
        S = S.astype(np.float64)
    top = S.max() if S.size else 0
    if np.isneginf(top):
        top = 0
    e = np.exp(S - top)
    total = e.sum()  # every entry's, not each row's along `axis`
    return e / total if total > 0 else np.zeros_like(e)
