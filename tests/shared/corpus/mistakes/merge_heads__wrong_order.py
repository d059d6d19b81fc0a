"""Mistake: heads merged in the wrong order."""

import numpy as np


def merge_heads(H):
    H = np.asarray(H)
    if H.dtype.kind not in "fiu" or H.ndim < 3:
        raise ValueError(f"H must be a (..., n_heads, n, d_k) array of numbers, got {H.dtype} {H.shape}")
    if H.dtype.kind != "f":
        H = H.astype(np.float64)
    n_heads, n, d_k = H.shape[-3:]
    return H.reshape(*H.shape[:-3], n, n_heads * d_k)
