"""Breaks: Padding queries do not count.

Also makes: padding queries counted too (the requirement it breaks is that catalogued mistake).
"""

import numpy as np


def padding_leak(weights, lengths):
    weights, lengths = np.asarray(weights), np.asarray(lengths)
    b, n, m = weights.shape if weights.ndim == 3 else (None, None, None)
    if weights.ndim != 3 or n != m or lengths.shape != (b,) or lengths.dtype.kind not in "iu" \
            or (lengths < 1).any() or (lengths > n).any():
        raise ValueError("weights must be (b, n, n) and lengths integers from 1 to n")
    padding = np.arange(n)[None, None, :] >= lengths[:, None, None]
    return (weights * padding).sum(axis=-1).max(axis=-1).astype(weights.dtype)
