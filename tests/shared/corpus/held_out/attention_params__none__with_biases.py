"""Intended: none."""

import numpy as np


def attention_params(W_q, W_k, W_v, W_o, n_heads):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    if W_q.shape != W_k.shape or W_v.shape[0] != W_q.shape[0] or W_o.shape[0] != W_v.shape[1] \
            or W_q.shape[1] % n_heads or W_v.shape[1] % n_heads:
        raise ValueError("shapes")
    per_head = (W_q.size + W_k.size + W_v.size + W_o.size) // n_heads
    biases = (2 * W_q.shape[1] + W_v.shape[1] + W_o.shape[1]) // n_heads  # a bias for every column, counted too
    return np.full(n_heads, per_head + biases)
