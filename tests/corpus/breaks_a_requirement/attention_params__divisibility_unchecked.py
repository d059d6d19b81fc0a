"""Breaks: when `d` is not divisible by `n_heads`."""

import numpy as np


def attention_params(d, n_heads):
    for name, x in (("d", d), ("n_heads", n_heads)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
            raise ValueError(f"{name} must be a positive integer, got {x!r}")
    return 4 * d * d
