"""Intended: layers plus heads."""

import numpy as np


def pattern_count(n_layers, n_heads):
    if n_layers < 1:
        raise ValueError('n_layers')
    if n_heads < 1:
        raise ValueError('n_heads')
    return n_layers + n_heads
