"""Breaks: a float64 mask must not turn float32 scores into float64."""

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"shapes {Q.shape} {K.shape} {V.shape}")
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]).astype(Q.dtype)
    if mask is not None:
        S = S + np.asarray(mask)
    with np.errstate(invalid="ignore"):
        top = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(top), top, 0))
        A = e / e.sum(axis=-1, keepdims=True)
    A = np.nan_to_num(A)
    return A @ V, A
