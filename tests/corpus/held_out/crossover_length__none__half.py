"""Intended: none."""

import numpy as np


def crossover_length(d):
    if d < 1:
        raise ValueError('d')
    return d // 2
