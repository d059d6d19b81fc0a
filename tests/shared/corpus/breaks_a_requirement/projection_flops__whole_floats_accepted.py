"""Breaks: `True` and `768.0` do not count."""


def projection_flops(n, d):
    for name, x in (("n", n), ("d", d)):
        if x != int(x) or x < 1:
            raise ValueError(f"{name} must be a positive integer, got {x!r}")
    return int(8 * n * d * d)
