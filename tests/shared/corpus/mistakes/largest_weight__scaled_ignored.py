"""Mistake: `scaled` ignored."""

import numpy as np


def largest_weight(d_k, n_keys, scaled, n_trials, rng):
    for name, value in (("d_k", d_k), ("n_keys", n_keys), ("n_trials", n_trials)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    queries = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    scores = np.einsum("td,tkd->tk", queries, keys)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return float(weights.max(axis=1).mean())
