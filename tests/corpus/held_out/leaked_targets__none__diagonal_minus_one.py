"""Intended: none."""

import numpy as np


def leaked_targets(mask):
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError('mask')
    return int(np.isfinite(np.diagonal(mask, offset=-1)).sum()) + 1
