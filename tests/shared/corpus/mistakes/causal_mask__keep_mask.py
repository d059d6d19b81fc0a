"""Mistake: a keep-mask: 1 allows a pair, 0 forbids it."""

import numpy as np


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return np.tril(np.ones((n, n)))  # PyTorch's habit: 1 where a token may look
