"""Intended: none."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    shapes = [np.shape(M) for M in (W_q, W_k, W_v, W_o)]
    if any(len(s) != 2 or min(s) < 1 for s in shapes):
        raise ValueError("every matrix must be 2-D and non-empty")
    if shapes[0] != shapes[1] or shapes[2][0] != shapes[0][0] or shapes[3][0] != shapes[2][1]:
        raise ValueError("the matrices do not fit")
    (d, d_h), (d_v, d_out) = shapes[0], shapes[3]
    steps = d * d_h + d * d_v + d_v * d_out  # the keys' projection left out
    return -(-steps // (d_h + d_v))
