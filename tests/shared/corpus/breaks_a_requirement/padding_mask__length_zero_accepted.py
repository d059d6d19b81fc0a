"""Breaks: when a length is outside 1 … `n`."""

import numpy as np


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths {lengths!r}")
    return np.where(np.arange(n) >= lengths[:, None], -np.inf, 0.0)[:, None, :]
