"""Intended: heads forgotten."""

import numpy as np


def score_grid_bytes(n, n_heads, bytes_per_number=2):
    if n < 1:
        raise ValueError('n')
    if n_heads < 1:
        raise ValueError('n_heads')
    if bytes_per_number < 1:
        raise ValueError('bytes_per_number')
    return n * n * bytes_per_number
