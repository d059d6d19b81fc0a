"""Mistake: mixing left out."""

import math

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    shapes = [np.shape(W) for W in (W_q, W_k, W_v, W_o)]
    if any(len(s) != 2 or 0 in s for s in shapes) or shapes[0] != shapes[1] \
            or shapes[2][0] != shapes[0][0] or shapes[3][0] != shapes[2][1]:
        raise ValueError(f"shapes do not fit: {shapes}")
    (d, d_h), _, (_, d_v), (_, d_out) = shapes
    return math.ceil((2 * d * d_h + d * d_v + d_v * d_out) / d_h)  # the grid as the scores alone
