"""Mistake: the head's columns zeroed after W_o."""

import numpy as np


def ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None):
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"no head {head!r} among {n_heads}")
    X, W_q, W_k, W_v = (a if a.dtype.kind == "f" else a.astype(np.float64)
                        for a in map(np.asarray, (X, W_q, W_k, W_v)))
    heads, _ = attention(split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads),
                         split_heads(X @ W_v, n_heads), mask)
    joined = merge_heads(heads)
    out = joined @ np.asarray(W_o).astype(joined.dtype, copy=False)
    width = joined.shape[-1] // n_heads
    out[:, head * width:(head + 1) * width] = 0
    return out
