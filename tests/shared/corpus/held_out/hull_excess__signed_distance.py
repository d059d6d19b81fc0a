"""Intended: signed distance."""

import numpy as np


def hull_excess(O, V, allowed=None):
    O, V = np.asarray(O), np.asarray(V)
    if O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]:
        raise ValueError('shapes')
    allowed = np.ones((O.shape[0], V.shape[0]), bool) if allowed is None else np.asarray(allowed)
    vis = allowed[:, :, None]
    top = np.where(vis, V[None], -np.inf).max(axis=1)
    bot = np.where(vis, V[None], np.inf).min(axis=1)
    return np.maximum(O - top, bot - O).max(axis=1)
