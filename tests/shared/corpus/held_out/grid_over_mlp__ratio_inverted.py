"""Intended: ratio inverted."""

import numpy as np


def grid_over_mlp(n, d):
    if n < 1:
        raise ValueError('n')
    if d < 1:
        raise ValueError('d')
    return (8 * n * d * d) / (2 * n * n * d)
