"""Intended: none."""

import numpy as np


def mlp_flops(n, d):
    if n < 1:
        raise ValueError('n')
    if d < 1:
        raise ValueError('d')
    return 8 * n * d * d + 5 * n * d
