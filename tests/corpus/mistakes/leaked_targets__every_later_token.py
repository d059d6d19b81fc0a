"""Mistake: every later token counted."""

import numpy as np


def leaked_targets(mask):
    mask = np.asarray(mask, dtype=np.float64)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be square, got {mask.shape}")
    n = len(mask)
    return sum(int(np.isfinite(mask[i, j])) for i in range(n) for j in range(i + 1, n))
