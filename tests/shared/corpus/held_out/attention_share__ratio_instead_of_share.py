"""Intended: ratio instead of share."""

import numpy as np


def attention_share(n, d):
    if n < 1:
        raise ValueError('n')
    if d < 1:
        raise ValueError('d')
    return (2 * n * n * d) / (4 * n * d * d)
