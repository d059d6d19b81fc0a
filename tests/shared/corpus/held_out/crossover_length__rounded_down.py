"""Intended: rounded down."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    W_q, W_k, W_v, W_o = map(np.asarray, (W_q, W_k, W_v, W_o))
    if min(W.ndim for W in (W_q, W_k, W_v, W_o)) != 2 or max(W.ndim for W in (W_q, W_k, W_v, W_o)) != 2:
        raise ValueError("2-D only")
    if 0 in W_q.shape + W_v.shape + W_o.shape or W_q.shape != W_k.shape:
        raise ValueError("bad W_q/W_k")
    if W_v.shape[0] != W_q.shape[0] or W_o.shape[0] != W_v.shape[1]:
        raise ValueError("bad W_v/W_o")
    projections = W_q.size + W_k.size + W_v.size + W_o.size  # per token: d·d_h + d·d_h + d·d_v + d_v·d_out
    return int(projections / (W_q.shape[1] + W_v.shape[1]))
