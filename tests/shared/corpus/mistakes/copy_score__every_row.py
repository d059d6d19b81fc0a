"""Mistake: averaged over every row."""

import numpy as np


def copy_score(logits, tokens):
    tokens = np.asarray(tokens)
    guess = np.asarray(logits).argmax(axis=1)
    hits = 0
    for i in range(len(tokens)):
        targets = [t for t in range(1, i) if tokens[t - 1] == tokens[i]]
        hits += any(guess[i] == tokens[t] for t in targets)
    return hits / (len(tokens) - 1)
