"""Mistake: factor 2 missing."""

import numpy as np


def score_flops(n, d):
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return n * n * d
