"""Mistake: one token ahead."""

import numpy as np


def previous_score(A):
    return float(np.diagonal(np.asarray(A), offset=1).mean())
