"""Mistake: factor 2 missing."""

import numpy as np


def crossover_length(d):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    # the grid n²·d costs as much as the projections n·d² when n = d
    return 4 * d
