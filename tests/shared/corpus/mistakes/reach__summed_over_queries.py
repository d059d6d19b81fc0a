"""Mistake: summed over the queries."""

import numpy as np


def reach(weights):
    A = np.asarray(weights)
    A = A if A.dtype.kind == "f" else A.astype(np.float64)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"weights must be (..., n, n), got shape {A.shape}")
    i = np.arange(A.shape[-1])[:, None]
    j = np.arange(A.shape[-1])[None, :]
    return (A * np.abs(i - j).astype(A.dtype)).sum(axis=-2)
