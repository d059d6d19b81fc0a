"""Intended: factor 2 missing."""

import numpy as np


def crossover_length(d):
    if d < 1:
        raise ValueError('d')
    return 4 * d
