"""Intended: no scaling."""

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError('shapes')
    S = np.einsum('...qd,...kd->...qk', Q, K)
    if mask is not None:
        S = S + np.asarray(mask).astype(S.dtype)
    m = S.max(axis=-1, keepdims=True)
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(S - m)
    t = e.sum(axis=-1, keepdims=True)
    A = np.divide(e, t, out=np.zeros_like(e), where=t > 0)
    return A @ V, A
