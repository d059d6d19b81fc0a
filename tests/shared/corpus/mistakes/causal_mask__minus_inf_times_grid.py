"""Mistake: −inf times a grid of 0s and 1s."""

import numpy as np


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    later = np.triu(np.ones((n, n)), k=1)  # 1 where j > i
    return -np.inf * later
