"""Intended: causal mask off by one: diagonal forbidden."""

import numpy as np


def causal_mask(n):
    if n < 1:
        raise ValueError('n')
    return np.where(np.tril(np.ones((n, n)), -1) + np.eye(n) * 0 > 0, 0.0, -np.inf)
