"""Wrong only in: shape (b, n), the query axis missing: the shape message says so, no mistake is named."""

import numpy as np


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got {lengths.shape} {lengths.dtype}")
    if lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"every length must be between 1 and {n}, got {lengths.tolist()}")
    positions = np.arange(n)
    padded = positions[None, :] >= lengths[:, None]
    return np.where(padded, -np.inf, 0.0)
