"""Wrong: three projections (the output one forgotten), computed as a float where a count is due (no known mistake)."""


def projection_flops(n, d):
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return 3.0 * n * d ** 2
