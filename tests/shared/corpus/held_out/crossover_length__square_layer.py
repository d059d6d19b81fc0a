"""Intended: the square layer's 2·d."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    for W in (W_q, W_k, W_v, W_o):
        if np.ndim(W) != 2 or np.size(W) == 0:
            raise ValueError("need 2-D matrices")
    if np.shape(W_q) != np.shape(W_k) or len(W_v) != len(W_q) or len(W_o) != np.shape(W_v)[1]:
        raise ValueError("shapes")
    width = len(W_q)
    n = 1
    while 2 * n * n * width < 4 * n * width * width:  # the chapter's counts at width d
        n += 1
    return n
