"""Breaks: `True` does not count."""

import numpy as np


def causal_mask(n):
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return np.triu(np.full((n, n), -np.inf), k=1)
