"""Mistake: factor 2 missing."""

import numpy as np


def crossover_length(d):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    # the grid n²·d (its factor 2 dropped) costs as much as the projections 4·n·d² when n = 4d
    return 4 * d
