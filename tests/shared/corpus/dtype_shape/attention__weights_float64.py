"""Wrong only in: dtype (the output keeps float32, the weights come back float64)."""

import math

import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (Q, K, V)))
    if min(Q.ndim, K.ndim, V.ndim) < 2 or Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"shapes do not fit: Q {Q.shape}, K {K.shape}, V {V.shape}")
    S = (Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])).astype(np.float64)
    if mask is not None:
        S = S + mask
    top = np.max(S, axis=-1, keepdims=True)
    e = np.exp(S - np.where(np.isneginf(top), 0, top))
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return (weights @ V).astype(np.result_type(Q, K, V)), weights
