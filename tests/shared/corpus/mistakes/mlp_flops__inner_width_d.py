"""Mistake: inner width d instead of 4d."""


def mlp_flops(n, d):
    if min(n, d) < 1:
        raise ValueError("n and d must be positive")
    return 2 * n * d * d
