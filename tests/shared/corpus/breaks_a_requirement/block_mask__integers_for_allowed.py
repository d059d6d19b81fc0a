"""Breaks: `allowed` is not booleans of shape `(g, g)`."""

import numpy as np


def block_mask(group_sizes, allowed):
    sizes = np.asarray(group_sizes)
    allowed = np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or (sizes < 1).any():
        raise ValueError("group_sizes")
    if allowed.shape != (sizes.size, sizes.size):
        raise ValueError("allowed")
    group = np.repeat(np.arange(sizes.size), sizes)
    return np.where(allowed.astype(bool)[group[:, None], group[None, :]], 0.0, -np.inf)
