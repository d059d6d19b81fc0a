"""Wrong: an off-by-one, the position counted from 1 (no known mistake)."""

import math

import numpy as np


def first_changed_output(X, W_q, W_k, W_v, j, mask=None):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be (n, d), got shape {X.shape}")
    n = X.shape[0]
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < n:
        raise ValueError(f"j must be an integer position between 0 and {n - 1}, got {j!r}")

    def outputs(tokens):
        Q, K, V = tokens @ W_q, tokens @ W_k, tokens @ W_v
        S = Q @ K.T / math.sqrt(Q.shape[-1])
        if mask is not None:
            S = S + mask
        top = S.max(axis=-1, keepdims=True)
        e = np.exp(S - np.where(np.isneginf(top), 0, top))
        total = e.sum(axis=-1, keepdims=True)
        return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ V

    changed = X.copy()
    changed[j] += 1.0
    moved = np.flatnonzero((outputs(X) != outputs(changed)).any(axis=-1))
    return int(moved[0]) + 1 if moved.size else n
