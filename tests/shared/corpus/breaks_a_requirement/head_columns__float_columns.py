"""Breaks: return an integer array."""

import numpy as np


def head_columns(d, n_heads):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1 or d % n_heads:
        raise ValueError(f"n_heads = {n_heads!r} does not divide d = {d}")
    token = np.arange(d, dtype=float)[None]  # split_heads works in floats; left as they come
    return np.swapaxes(token.reshape(1, n_heads, d // n_heads), 0, 1)[:, 0, :]
