"""Mistake: signed distance."""

import numpy as np


def hull_excess(O, V, allowed=None):
    O, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (O, V)))
    if O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]:
        raise ValueError("O and V do not fit")
    allowed = np.ones((len(O), len(V)), dtype=bool) if allowed is None else np.asarray(allowed)
    if not allowed.any(axis=1).all():
        raise ValueError("a query sees nothing")
    rows = []
    for o, seen in zip(O, allowed):
        rows.append(np.maximum(o - V[seen].max(axis=0), V[seen].min(axis=0) - o).max())
    return np.array(rows, dtype=O.dtype)
