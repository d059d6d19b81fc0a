"""Intended: none."""

import numpy as np


def attention_params(d, n_heads):
    if d < 1 or n_heads < 1 or d % n_heads:
        raise ValueError('d')
    return 4 * d * d + 4 * d
