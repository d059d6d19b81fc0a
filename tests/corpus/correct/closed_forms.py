"""Correct: the cost functions counted matrix by matrix or from simplified closed forms (share = n / (n + 2d))."""

import numpy as np


def projection_flops(n, d):
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    n, d = int(n), int(d)
    one_matrix = n * d * d  # (n, d) @ (d, d)
    return sum(one_matrix for _ in ("W_q", "W_k", "W_v", "W_o"))


def score_flops(n, d):
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    n, d = int(n), int(d)
    scores = n * d * n   # (n, d) @ (d, n)
    mixing = n * n * d   # (n, n) @ (n, d)
    return scores + mixing


def attention_share(n, d):
    for name, v in (("n", n), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    # 2n²d / (2n²d + 4nd²) = n / (n + 2d)
    return int(n) / (int(n) + 2 * int(d))


def crossover_length(d):
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return int(d) + int(d)


def score_grid_bytes(n, n_heads, bytes_per_number=2):
    for name, v in (("n", n), ("n_heads", n_heads), ("bytes_per_number", bytes_per_number)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    cells_per_head = int(n) ** 2
    return cells_per_head * int(n_heads) * int(bytes_per_number)


def attention_params(d, n_heads):
    for name, v in (("d", d), ("n_heads", n_heads)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    d, n_heads = int(d), int(n_heads)
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    d_k = d // n_heads
    # every head has its own (d, d_k) slices of W_q, W_k, W_v and a (d_k, d) slice of W_o
    return n_heads * (3 * d * d_k + d_k * d)
