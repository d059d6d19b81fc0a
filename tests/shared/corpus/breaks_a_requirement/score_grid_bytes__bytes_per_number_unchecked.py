"""Breaks: an argument that is not a positive integer raises a ValueError."""

import numpy as np


def score_grid_bytes(n, n_heads, bytes_per_number=2):
    for name, x in (("n", n), ("n_heads", n_heads)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
            raise ValueError(f"{name} must be a positive integer, got {x!r}")
    return int(n_heads * n * n * bytes_per_number)
