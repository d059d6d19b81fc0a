"""Mistake: the earlier copy instead of the token after it."""

import numpy as np


def induction_score(A, tokens):
    A, tokens = np.asarray(A), np.asarray(tokens)
    n = len(tokens)
    # looks at the earlier copy of the token itself, not at the token after it
    targets = (tokens[:, None] == tokens[None, :]) & np.tril(np.ones((n, n), dtype=bool), k=-1)
    rows = targets.any(axis=1)
    return float((A * targets).sum(axis=1)[rows].mean()) if rows.any() else 0.0
