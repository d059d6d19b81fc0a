"""Wrong: j ≥ length − 1 forbidden, so the last real token is hidden too: the mirror image of the known off-by-one."""

import numpy as np


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or lengths.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got {lengths!r}")
    if lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"every length must be between 1 and n = {n}, got {lengths.tolist()}")
    forbidden = np.arange(n)[None, :] >= lengths[:, None] - 1
    return np.where(forbidden, -np.inf, 0.0)[:, None, :]
