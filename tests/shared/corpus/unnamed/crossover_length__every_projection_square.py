"""Wrong: every projection counted as d·d a token, whatever the matrices' widths, against the right grid."""

import numpy as np


def crossover_length(W_q, W_k, W_v, W_o):
    shapes = [np.shape(W) for W in (W_q, W_k, W_v, W_o)]
    if any(len(s) != 2 or 0 in s for s in shapes) or shapes[0] != shapes[1] \
            or shapes[2][0] != shapes[0][0] or shapes[3][0] != shapes[2][1]:
        raise ValueError(f"shapes do not fit: {shapes}")
    (d, d_h), _, (_, d_v), _ = shapes
    return -(-4 * d * d // (d_h + d_v))
