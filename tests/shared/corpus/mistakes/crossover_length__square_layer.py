"""Mistake: the square layer's 2·d."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    shapes = [np.shape(W) for W in (W_q, W_k, W_v, W_o)]
    if any(len(s) != 2 or 0 in s for s in shapes) or shapes[0] != shapes[1] \
            or shapes[2][0] != shapes[0][0] or shapes[3][0] != shapes[2][1]:
        raise ValueError(f"shapes do not fit: {shapes}")
    # 4·n·d² = 2·n²·d, the chapter's square layer, whatever the matrices' own widths
    return 2 * shapes[0][0]
