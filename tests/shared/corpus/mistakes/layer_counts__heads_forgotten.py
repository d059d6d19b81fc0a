"""Mistake: heads forgotten."""


def layer_counts(n, d, n_heads):
    for name, value in (("n", n), ("d", d), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return n * d, n * n, n * n
