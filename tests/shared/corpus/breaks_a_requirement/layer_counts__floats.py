"""Breaks: a tuple of three Python ints."""


def layer_counts(n, d, n_heads):
    for x in (n, d, n_heads):
        if not isinstance(x, int) or isinstance(x, bool) or x < 1:
            raise ValueError(x)
    if d % n_heads:
        raise ValueError(d)
    return n * d * 1.0, n * n * 1.0, n_heads * n * n * 1.0
