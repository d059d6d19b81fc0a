"""Mistake: ratio inverted."""


def grid_over_mlp(n, d):
    return mlp_flops(n, d) / score_flops(n, d)
