"""Breaks: every row is the mean of V's rows."""

import numpy as np


def equal_scores(V):
    return np.asarray(V).sum(axis=-2)
