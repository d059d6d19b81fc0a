"""Mistake: causal mask off by one: one future token allowed."""

import numpy as np


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return np.triu(np.full((n, n), -np.inf), k=2)
