"""Mistake: columns counted from 1."""

import numpy as np


def head_columns(d, n_heads):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1 or d % n_heads:
        raise ValueError(f"n_heads = {n_heads!r} does not divide d = {d}")
    token = np.arange(1, d + 1).reshape(1, d)  # columns 1 … d
    return token.reshape(1, n_heads, d // n_heads).swapaxes(0, 1)[:, 0, :]
