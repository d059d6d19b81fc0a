"""Breaks: `n_heads` does not divide `d`."""


def layer_counts(n, d, n_heads):
    for x in (n, d, n_heads):
        if not isinstance(x, int) or isinstance(x, bool) or x < 1:
            raise ValueError(x)
    return n * d, n * n, n_heads * n * n
