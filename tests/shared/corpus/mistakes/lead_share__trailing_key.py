"""Mistake: the trailing key's share."""

import numpy as np


def lead_share(lead):
    lead = np.asarray(lead)
    lead = lead if lead.dtype.kind == "f" else lead.astype(np.float64)
    return softmax(np.stack([lead, np.zeros_like(lead)], axis=-1))[..., 1]
