"""Breaks: returning that length as an integer."""

import numpy as np


def crossover_length(d):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return 2.0 * d
