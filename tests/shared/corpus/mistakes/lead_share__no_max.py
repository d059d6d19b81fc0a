"""Mistake: softmax without subtracting the row maximum."""

import numpy as np


def lead_share(lead):
    lead = np.asarray(lead)
    lead = lead if lead.dtype.kind == "f" else lead.astype(np.float64)
    return np.exp(lead) / (np.exp(lead) + 1)
