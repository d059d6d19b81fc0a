"""Breaks: integers become float64."""

import numpy as np


def split_heads(M, n_heads):
    M = np.asarray(M)
    if M.ndim < 2 or M.shape[-1] % n_heads:
        raise ValueError(f"shape {M.shape}")
    *lead, n, d = M.shape
    return np.swapaxes(M.reshape(*lead, n, n_heads, d // n_heads), -3, -2)
