"""Breaks: or `0.0` when no row has a target."""

import numpy as np


def copy_score(logits, tokens):
    tokens = np.asarray(tokens)
    grid = np.zeros((len(tokens), len(tokens)), dtype=bool)
    grid[:, 1:] = tokens[None, :-1] == tokens[:, None]
    T = np.tril(grid, k=-1)
    guess = np.asarray(logits).argmax(axis=-1)
    copies = [guess[i] in tokens[T[i]] for i in np.flatnonzero(T.any(axis=1))]
    with np.errstate(all="ignore"):
        return float(np.mean(copies)) if copies else float("nan")
