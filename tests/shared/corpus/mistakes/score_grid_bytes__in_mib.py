"""Mistake: in MiB instead of bytes."""

import numpy as np


def score_grid_bytes(n, n_heads, bytes_per_number=2):
    for name, value in (("n", n), ("n_heads", n_heads), ("bytes_per_number", bytes_per_number)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return n * n * n_heads * bytes_per_number / 2**20
