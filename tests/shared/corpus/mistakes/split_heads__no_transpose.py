"""Mistake: heads cut by a reshape without the transpose."""

import numpy as np


def split_heads(M, n_heads):
    M = np.asarray(M)
    if M.dtype.kind not in "fiu" or M.ndim < 2:
        raise ValueError(f"M must be a (..., n, d) array of numbers, got {M.dtype} {M.shape}")
    if M.dtype.kind != "f":
        M = M.astype(np.float64)
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    n, d = M.shape[-2:]
    if d % n_heads != 0:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return M.reshape(*M.shape[:-2], n_heads, n, d // n_heads)
