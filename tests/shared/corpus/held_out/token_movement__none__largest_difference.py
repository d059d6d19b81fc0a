"""Intended: none."""

import numpy as np


def token_movement(X, O):
    X, O = np.asarray(X), np.asarray(O)
    if X.shape != O.shape:
        raise ValueError('shapes')
    return np.abs(X - O).max(axis=-1)
