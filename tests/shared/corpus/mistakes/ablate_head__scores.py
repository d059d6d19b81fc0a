"""Mistake: the head's scores zeroed instead of its output."""

import numpy as np


def ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None):
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"no head {head!r} among {n_heads}")
    X, W_q, W_k, W_v = (a if a.dtype.kind == "f" else a.astype(np.float64)
                        for a in map(np.asarray, (X, W_q, W_k, W_v)))
    Q = split_heads(X @ W_q, n_heads)
    Q[head] = 0  # every score of the head is 0
    heads, _ = attention(Q, split_heads(X @ W_k, n_heads), split_heads(X @ W_v, n_heads), mask)
    joined = merge_heads(heads)
    return joined @ np.asarray(W_o).astype(joined.dtype, copy=False)
