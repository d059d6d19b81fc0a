"""Intended: −1e9 written for −inf."""

import numpy as np


def padding_mask(lengths, n):
    lengths = np.asarray(lengths)
    if n < 1 or lengths.ndim != 1 or lengths.size == 0 or lengths.min() < 1 or lengths.max() > n:
        raise ValueError('lengths')
    return np.where(np.arange(n)[None, :] >= lengths[:, None], -1e9, 0.0)[:, None, :]
