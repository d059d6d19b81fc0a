"""Mistake: a keep-mask: 1 allows a pair, 0 forbids it."""

import numpy as np


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"bad lengths {lengths!r}")
    if (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"each length must lie between 1 and {n}")
    keep = np.zeros((len(lengths), 1, n))
    for k, length in enumerate(lengths):
        keep[k, 0, :length] = 1.0  # 1 for a real token, 0 for filler
    return keep
