"""Mistake: output projection forgotten."""

import numpy as np


def attention_params(d, n_heads):
    for name, value in (("d", d), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return 3 * d * d
