"""Mistake: the earlier copy instead of the token after it."""

import numpy as np


def copy_score(logits, tokens):
    tokens = np.asarray(tokens)
    guess = np.asarray(logits).argmax(axis=1)
    rows, hits = 0, 0
    for i in range(len(tokens)):
        if any(tokens[t - 1] == tokens[i] for t in range(1, i)):
            rows += 1
            hits += guess[i] == tokens[i]  # predicts A again
    return hits / rows if rows else 0.0
