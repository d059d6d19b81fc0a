"""Mistake: output projection forgotten."""

import numpy as np


def _checked(W_q, W_k, W_v, W_o, n_heads):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    if any(W.ndim != 2 for W in (W_q, W_k, W_v, W_o)) or W_q.shape != W_k.shape or W_v.shape[0] != W_q.shape[0] \
            or W_o.shape[0] != W_v.shape[1]:
        raise ValueError(f"shapes do not fit: {W_q.shape}, {W_k.shape}, {W_v.shape}, {W_o.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1 \
            or W_q.shape[1] % n_heads or W_v.shape[1] % n_heads:
        raise ValueError(f"n_heads = {n_heads!r} must be a positive integer dividing the widths")
    return W_q, W_k, W_v, W_o


def attention_params(W_q, W_k, W_v, W_o, n_heads):
    W_q, W_k, W_v, W_o = _checked(W_q, W_k, W_v, W_o, n_heads)
    per_head = (W_q.size + W_k.size + W_v.size) // n_heads  # W_o left out
    return np.full(n_heads, per_head)
