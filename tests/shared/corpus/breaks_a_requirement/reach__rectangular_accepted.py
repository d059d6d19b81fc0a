"""Breaks: Raise a `ValueError` when `weights` has fewer than two dimensions or its last two differ."""

import numpy as np


def reach(weights):
    A = np.asarray(weights)
    A = A if A.dtype.kind == "f" else A.astype(np.float64)
    if A.ndim < 2:
        raise ValueError(f"weights must have at least 2 dimensions, got shape {A.shape}")
    n_q, n_k = A.shape[-2:]
    distance = np.abs(np.arange(n_q)[:, None] - np.arange(n_k)[None, :])
    return (A * distance.astype(A.dtype)).sum(axis=-1)
