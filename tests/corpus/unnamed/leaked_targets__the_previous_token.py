"""Wrong: mask[i, i − 1] read (the token before), not mask[i, i + 1]: the mirror image of the question (no known mistake)."""

import numpy as np


def leaked_targets(mask):
    mask = np.asarray(mask, dtype=float)
    if mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be a square grid, got shape {mask.shape}")
    return int(np.isfinite(np.diagonal(mask, offset=-1)).sum())
