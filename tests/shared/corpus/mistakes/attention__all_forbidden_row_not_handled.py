"""Mistake: an all-forbidden row not handled."""

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError('shapes')
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]).astype(Q.dtype)
    if mask is not None:
        S = S + np.asarray(mask).astype(S.dtype)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return A @ V, A
