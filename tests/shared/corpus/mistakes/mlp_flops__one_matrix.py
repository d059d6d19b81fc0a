"""Mistake: one of the two matrices."""


def mlp_flops(n, d):
    if min(n, d) < 1:
        raise ValueError("n and d must be positive")
    return n * d * 4 * d
