"""Mistake: integer division."""

import numpy as np


def attention_share(n, d):
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    grid = 2 * n * n * d
    return grid // (grid + 4 * n * d * d)
