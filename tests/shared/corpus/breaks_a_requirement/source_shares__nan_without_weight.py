"""Breaks: a row with no weight at all (a query whose every key is forbidden) gives zeros, not NaN."""

import numpy as np


def source_shares(weights, source, n_sources=None):
    weights, source = np.asarray(weights), np.asarray(source)
    weights = weights if weights.dtype.kind == "f" else weights.astype(np.float64)
    if weights.ndim < 2:
        raise ValueError("weights must be (..., n_q, n_k)")
    if source.ndim != 1 or source.dtype.kind not in "iu" or len(source) != weights.shape[-1]:
        raise ValueError("source must be one integer id per key")
    if (source < 0).any():
        raise ValueError("source ids must be 0 or more")
    if n_sources is None:
        n_sources = int(source.max()) + 1
    if isinstance(n_sources, bool) or not isinstance(n_sources, (int, np.integer)) or n_sources <= source.max():
        raise ValueError("n_sources must be an integer larger than every id")
    one_hot = np.eye(n_sources, dtype=weights.dtype)[source]
    return (weights @ one_hot) / weights.sum(axis=-1, keepdims=True)  # 0 / 0 where a row has no weight
