"""Mistake: the tokens mixed instead of their values."""

import numpy as np


def permutation_gaps(X, W_q, W_k, W_v, kernel, perm):
    X, W_q, W_k, W_v, kernel = (np.asarray(a, dtype=np.float64) for a in (X, W_q, W_k, W_v, kernel))
    perm = np.asarray(perm)
    n = len(X)
    if kernel.ndim != 1 or kernel.size % 2 == 0:
        raise ValueError(f"kernel must be 1-D of odd length, got shape {kernel.shape}")
    if perm.shape != (n,) or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0 ... {n - 1}, got {perm.tolist()}")
    r = kernel.size // 2
    C = np.zeros((n, n), dtype=kernel.dtype)
    for i in range(n):
        for k in range(-r, r + 1):
            if 0 <= i + k < n:
                C[i, i + k] = kernel[k + r]

    def self_attention(T):
        return attention(T @ W_q, T @ W_k, T @ W_v)[0]

    def fixed_mix(T):
        return C @ (T)

    where = perm
    return tuple(float(np.abs(f(X[perm]) - f(X)[where]).max()) for f in (self_attention, fixed_mix))
