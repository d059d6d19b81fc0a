"""Breaks: exactly 1.0 and 0.0 for leads of ±1000, not NaN.

Also makes: softmax without subtracting the row maximum (exp(1000) overflows where nothing is subtracted first).
"""

import numpy as np


def lead_share(lead):
    lead = np.asarray(lead)
    lead = lead if lead.dtype.kind == "f" else lead.astype(np.float64)
    with np.errstate(all="ignore"):
        return np.exp(lead) / (np.exp(lead) + 1)
