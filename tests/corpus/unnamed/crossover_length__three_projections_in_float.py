"""Wrong: 3·n·d² (the output projection forgotten) set against 2·n²·d, giving 1.5·d, a float where a count is due."""


def crossover_length(d):
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return 3 * d / 2
