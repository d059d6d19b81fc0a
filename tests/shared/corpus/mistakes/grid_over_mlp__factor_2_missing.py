"""Mistake: factor 2 missing."""


def grid_over_mlp(n, d):
    return n * n * d / mlp_flops(n, d)
