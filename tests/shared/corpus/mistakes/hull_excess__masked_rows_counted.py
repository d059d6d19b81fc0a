"""Mistake: every value row counted, masked ones too."""

import numpy as np


def hull_excess(O, V, allowed=None):
    O, V = np.asarray(O), np.asarray(V)
    if O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]:
        raise ValueError("O and V do not fit")
    if allowed is not None and not np.asarray(allowed).any(axis=1).all():
        raise ValueError("a query sees nothing")
    over = np.maximum(O - V.max(axis=0), V.min(axis=0) - O)
    return np.maximum(over, 0).max(axis=1)
