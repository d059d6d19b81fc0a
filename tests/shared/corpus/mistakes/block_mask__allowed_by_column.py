"""Mistake: allowed read by column."""

import numpy as np


def block_mask(group_sizes, allowed):
    sizes = np.asarray(group_sizes)
    allowed = np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or sizes.min() < 1:
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, got {sizes.tolist()}")
    g = sizes.size
    if allowed.shape != (g, g) or allowed.dtype != bool:
        raise ValueError(f"allowed must be a ({g}, {g}) boolean array, got {allowed.shape} {allowed.dtype}")
    group_of = np.repeat(np.arange(g), sizes)  # which group each token belongs to
    ok = allowed[group_of[None, :], group_of[:, None]]
    return np.where(ok, 0.0, -np.inf)
