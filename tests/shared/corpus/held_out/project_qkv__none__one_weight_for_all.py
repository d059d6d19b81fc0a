"""Intended: none."""

import numpy as np


def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X)
    for W in (W_q, W_k, W_v):
        if np.shape(W)[0] != X.shape[-1]:
            raise ValueError('W')
    return X @ W_q, X @ W_q, X @ W_v
