"""Mistake: padding queries counted too."""

import numpy as np


def padding_leak(weights, lengths):
    weights, lengths = np.asarray(weights), np.asarray(lengths)
    if weights.ndim != 3 or (lengths < 1).any() or (lengths > weights.shape[-1]).any():
        raise ValueError("bad weights or lengths")
    out = []
    for A, length in zip(weights, lengths):
        out.append(A[:, length:].sum(axis=1).max())  # every query, padding ones too
    return np.array(out, dtype=weights.dtype)
