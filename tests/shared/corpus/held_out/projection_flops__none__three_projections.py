"""Intended: none."""

import numpy as np


def projection_flops(n, d):
    if n < 1:
        raise ValueError('n')
    if d < 1:
        raise ValueError('d')
    return 3 * n * d * d
