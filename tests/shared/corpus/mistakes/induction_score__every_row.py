"""Mistake: averaged over every row."""

import numpy as np


def induction_score(A, tokens):
    A, tokens = np.asarray(A), np.asarray(tokens)
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    targets[:, 1:] = tokens[:, None] == tokens[None, :-1]
    targets &= np.tril(np.ones((n, n), dtype=bool), k=-1)
    return float((A * targets).sum(axis=1)[1:].mean())
