"""Mistake: layers plus heads."""


def pattern_count(n_layers, n_heads):
    if min(n_layers, n_heads) < 1:
        raise ValueError("both counts must be positive")
    return n_layers + n_heads
