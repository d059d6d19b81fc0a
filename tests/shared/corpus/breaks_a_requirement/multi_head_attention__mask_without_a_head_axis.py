"""Breaks: give it a head axis of size 1 in front of its last two."""

import numpy as np


def _attention(Q, K, V, mask):
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]).astype(Q.dtype)
    if mask is not None:
        S = S + np.asarray(mask, dtype=S.dtype)
    with np.errstate(invalid="ignore"):
        top = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isfinite(top), top, 0))
        A = np.nan_to_num(e / e.sum(axis=-1, keepdims=True))
    return A @ V


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None):
    X, W_q, W_k, W_v, W_o = (a if a.dtype.kind == "f" else a.astype(np.float64)
                             for a in map(np.asarray, (X, W_q, W_k, W_v, W_o)))
    C = X if context is None else np.asarray(context)
    C = C if C.dtype.kind == "f" else C.astype(np.float64)
    def split(M):
        *lead, n, d = M.shape
        return np.swapaxes(M.reshape(*lead, n, n_heads, d // n_heads), -3, -2)
    H = _attention(split(X @ W_q), split(C @ W_k), split(C @ W_v), mask)  # the mask as given
    *lead, h, n, d_k = H.shape
    return np.swapaxes(H, -3, -2).reshape(*lead, n, h * d_k) @ W_o
