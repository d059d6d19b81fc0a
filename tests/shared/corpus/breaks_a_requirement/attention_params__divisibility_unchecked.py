"""Breaks: Raise a `ValueError` when `n_heads` does not divide a width."""

import numpy as np


def attention_params(W_q, W_k, W_v, W_o, n_heads):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    if W_q.shape != W_k.shape or W_v.shape[0] != W_q.shape[0] or W_o.shape[0] != W_v.shape[1]:
        raise ValueError("shapes do not fit")
    d_k, d_vk = W_q.shape[1] // n_heads, W_v.shape[1] // n_heads  # what does not divide is dropped
    return np.full(n_heads, W_q.shape[0] * (2 * d_k + d_vk) + d_vk * W_o.shape[1])
