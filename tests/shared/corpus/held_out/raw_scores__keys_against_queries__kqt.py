"""Intended: keys against queries."""

import numpy as np


def raw_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError('d_k')
    return K @ np.swapaxes(Q, -1, -2)
