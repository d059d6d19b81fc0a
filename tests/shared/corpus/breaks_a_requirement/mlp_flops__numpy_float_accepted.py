"""Breaks: a Python or NumPy int; `True` and `768.0` do not count."""

import numpy as np


def mlp_flops(n, d):
    for name, x in (("n", n), ("d", d)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer, np.floating)) or x < 1:
            raise ValueError(f"{name} must be a positive integer, got {x!r}")
    return int(16 * n * d * d)
