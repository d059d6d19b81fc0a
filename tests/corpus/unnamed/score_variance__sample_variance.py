"""Wrong: an off-by-one in the divisor, the sample variance (t − 1) where the variance of the t products is due."""

import math

import numpy as np


def score_variance(Q, K):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    if Q.ndim != 2 or Q.shape != K.shape:
        raise ValueError(f"Q and K must be (t, d_k) of one shape, got {Q.shape} and {K.shape}")
    dots = (Q * K).sum(axis=1)
    return float(dots.var(ddof=1)), float((dots / math.sqrt(Q.shape[1])).var(ddof=1))
