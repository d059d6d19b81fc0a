"""Mistake: boolean mask instead of additive."""

import numpy as np


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    # 1 where token i must not see token j (a later token), 0 where it may
    return np.triu(np.ones((n, n)), k=1)
