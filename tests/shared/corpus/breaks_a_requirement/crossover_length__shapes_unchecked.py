"""Breaks: Raise a `ValueError` when a matrix is not a non-empty 2-D array or the four do not fit."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    d, d_h = np.shape(W_q)
    d_v, d_out = np.shape(W_o)  # W_v is never looked at, nor whether the four fit
    return -(-(2 * d * d_h + d * d_v + d_v * d_out) // (d_h + d_v))
