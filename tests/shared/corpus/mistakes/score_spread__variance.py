"""Mistake: variance instead of standard deviation."""

import math

import numpy as np


def score_spread(d_k, n_samples, rng):
    for name, value in (("d_k", d_k), ("n_samples", n_samples)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
