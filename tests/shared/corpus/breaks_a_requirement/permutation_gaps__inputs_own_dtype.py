"""Breaks: computed in float64 whatever the inputs' dtype."""

import numpy as np


def permutation_gaps(X, W_q, W_k, W_v, kernel, perm):
    X, kernel, perm = np.asarray(X), np.asarray(kernel), np.asarray(perm)
    n = len(X)
    if kernel.ndim != 1 or kernel.size % 2 == 0:
        raise ValueError(f"kernel must be 1-D of odd length, got shape {kernel.shape}")
    if perm.shape != (n,) or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0 ... {n - 1}, got {perm.tolist()}")
    r = kernel.size // 2
    C = sum(kernel[k + r] * np.eye(n, k=k, dtype=kernel.dtype) for k in range(-r, r + 1))

    def self_attention(T):
        Q, K, V = T @ W_q, T @ W_k, T @ W_v
        S = Q @ K.T / np.sqrt(Q.shape[-1]).astype(Q.dtype)
        e = np.exp(S - S.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ V

    gaps = []
    for f in (self_attention, lambda T: C @ (T @ W_v)):
        gaps.append(float(np.abs(f(X[perm]) - f(X)[perm]).max()))
    return tuple(gaps)
