"""Breaks: on a tie, the first in that order."""

import numpy as np

KINDS = ("self", "previous", "start", "induction")


def _targets(tokens):
    tokens = np.asarray(tokens)
    T = tokens[None, :-1] == tokens[:, None]
    grid = np.zeros((len(tokens), len(tokens)), dtype=bool)
    grid[:, 1:] = T
    return np.tril(grid, k=-1)


def classify_head(A, tokens):
    A = np.asarray(A)
    T = _targets(tokens)
    rows = T.any(axis=1)
    induction = float((A * T).sum(axis=1)[rows].mean()) if rows.any() else 0.0
    scores = [np.diagonal(A)[1:].mean(), np.diagonal(A, -1).mean(), A[1:, 0].mean(), induction]
    best = len(scores) - 1 - int(np.argmax(scores[::-1]))  # the last of the largest
    return KINDS[best] if scores[best] >= 0.5 else "spread"
