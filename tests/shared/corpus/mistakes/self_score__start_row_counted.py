"""Mistake: the start token's row counted."""

import numpy as np


def self_score(A):
    return float(np.diagonal(np.asarray(A)).mean())
