"""Intended: none."""

import numpy as np


def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError('d_k')
    return (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(K.shape[-2] + 0.5).astype(Q.dtype)
