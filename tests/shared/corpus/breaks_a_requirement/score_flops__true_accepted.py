"""Breaks: `True` and `768.0` do not count."""


def score_flops(n, d):
    for x in (n, d):
        if not isinstance(x, int) or x < 1:
            raise ValueError(f"{x!r} is not a positive integer")
    return 4 * n * n * d
