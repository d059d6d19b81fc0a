"""Wrong: True where a key is padding (booleans), where the additive float mask (0 or −inf) is due (no known mistake)."""

import numpy as np


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or lengths.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got {lengths!r}")
    if lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"every length must be between 1 and n = {n}, got {lengths.tolist()}")
    return (np.arange(n)[None, :] >= lengths[:, None])[:, None, :]
