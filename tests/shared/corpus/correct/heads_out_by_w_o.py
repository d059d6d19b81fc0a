"""Correct: a head taken out by zeroing its rows of W_o (the same product), and prefixes counted by length."""

import numpy as np


def prefix_gaps(Q, K, V, mask):
    Q, K, V, mask = (np.asarray(a) for a in (Q, K, V, mask))
    n = Q.shape[0]
    if Q.ndim != 2 or K.shape != Q.shape or V.ndim != 2 or V.shape[0] != n or mask.shape != (n, n):
        raise ValueError(f"Q, K (n, d_k), V (n, d_v) and mask (n, n) expected, got {Q.shape}, {K.shape}, "
                         f"{V.shape}, {mask.shape}")
    whole, _ = attention(Q, K, V, mask)
    gaps = []
    for length in range(1, n + 1):
        alone, _ = attention(Q[:length], K[:length], V[:length], mask[:length, :length])
        gaps.append(np.max(np.abs(alone[length - 1] - whole[length - 1])))
    return np.array(gaps, dtype=whole.dtype)


def ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None):
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"head must be one of 0 … {n_heads - 1}, got {head!r}")
    X, W_q, W_k, W_v = (a if a.dtype.kind == "f" else a.astype(np.float64)
                        for a in map(np.asarray, (X, W_q, W_k, W_v)))
    heads, _ = attention(split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads),
                         split_heads(X @ W_v, n_heads), mask)
    joined = merge_heads(heads)
    rows = joined.shape[-1] // n_heads
    W_o = np.array(W_o, dtype=joined.dtype)  # a copy: the caller's W_o stays as it was
    W_o[head * rows:(head + 1) * rows] = 0
    return joined @ W_o
