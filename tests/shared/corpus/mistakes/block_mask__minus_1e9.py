"""Mistake: −1e9 written for −inf."""

import numpy as np


def block_mask(group_sizes, allowed):
    s = np.asarray(group_sizes); a = np.asarray(allowed)
    if s.ndim != 1 or s.size == 0 or s.min() < 1 or a.shape != (s.size, s.size) or a.dtype != bool:
        raise ValueError('bad')
    g = np.repeat(np.arange(s.size), s)
    return np.where(a[g[:, None], g[None, :]], 0.0, -1e9)
