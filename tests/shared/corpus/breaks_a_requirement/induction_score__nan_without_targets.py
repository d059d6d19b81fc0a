"""Breaks: or `0.0` when no row has a target."""

import numpy as np


def induction_score(A, tokens):
    tokens = np.asarray(tokens)
    grid = np.zeros((len(tokens), len(tokens)), dtype=bool)
    grid[:, 1:] = tokens[None, :-1] == tokens[:, None]
    T = np.tril(grid, k=-1)
    rows = T.any(axis=1)
    with np.errstate(all="ignore"):
        return float(np.mean((np.asarray(A) * T).sum(axis=1)[rows]))
