"""Intended: factor 2 missing."""

import numpy as np


def score_flops(n, d):
    if n < 1:
        raise ValueError('n')
    if d < 1:
        raise ValueError('d')
    return n * n * d
