"""Wrong only in: type (a nested list with the right numbers, not an array)."""

import numpy as np


def merge_heads(H):
    H = np.asarray(H)
    if H.ndim < 3:
        raise ValueError(f"H must be (..., n_heads, n, d_k), got shape {H.shape}")
    n_heads, n, d_k = H.shape[-3:]
    return np.swapaxes(H, -2, -3).reshape(*H.shape[:-3], n, n_heads * d_k).tolist()
