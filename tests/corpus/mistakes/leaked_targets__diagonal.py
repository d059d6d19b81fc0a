"""Mistake: the token itself instead of the next."""

import numpy as np


def leaked_targets(mask):
    mask = np.asarray(mask, dtype=np.float64)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be square, got {mask.shape}")
    return int(np.isfinite(np.diagonal(mask)).sum())
