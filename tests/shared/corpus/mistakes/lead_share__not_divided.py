"""Mistake: raised but not divided by the total."""

import numpy as np


def lead_share(lead):
    lead = np.asarray(lead)
    lead = lead if lead.dtype.kind == "f" else lead.astype(np.float64)
    return np.exp(lead)
