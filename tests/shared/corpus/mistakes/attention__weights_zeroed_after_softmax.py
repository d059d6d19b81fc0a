"""Mistake: weights zeroed after the softmax."""

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError('shapes')
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]).astype(Q.dtype)
    m = S.max(axis=-1, keepdims=True)
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(S - m)
    t = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
    if mask is not None:
        A = A * (np.asarray(mask) == 0)
    return A @ V, A
