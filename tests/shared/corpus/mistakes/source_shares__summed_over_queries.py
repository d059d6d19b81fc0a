"""Mistake: summed over the queries."""

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
    out = np.zeros((*weights.shape[:-1], n_sources), dtype=weights.dtype)
    everyone = weights.sum(axis=-2)  # what all the queries together give each key
    total = everyone.sum(axis=-1)
    for s in range(n_sources):
        share = np.where(total > 0, everyone[..., source == s].sum(axis=-1) / np.where(total > 0, total, 1), 0)
        out[..., s] = share[..., None]
    return out
