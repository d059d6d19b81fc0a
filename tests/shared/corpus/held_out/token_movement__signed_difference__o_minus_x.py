"""Intended: signed difference."""

import numpy as np


def token_movement(X, O):
    X, O = np.asarray(X), np.asarray(O)
    if X.shape != O.shape:
        raise ValueError('shapes')
    return (O - X).mean(axis=-1)
