"""Correct: the cost functions counted matrix by matrix or from simplified closed forms (share = n / (n + 2d))."""

import math

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


def crossover_length(W_q, W_k, W_v, W_o):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    if any(W.ndim != 2 or W.size == 0 for W in (W_q, W_k, W_v, W_o)):
        raise ValueError("each matrix must be 2-D and non-empty")
    if W_q.shape != W_k.shape or W_v.shape[0] != W_q.shape[0] or W_o.shape[0] != W_v.shape[1]:
        raise ValueError("the matrices do not fit each other")
    per_token = W_q.size + W_k.size + W_v.size + W_o.size  # each projection's steps for one token
    per_pair = W_k.shape[1] + W_v.shape[1]
    return int(math.ceil(per_token / per_pair))


def score_grid_bytes(n, n_heads, bytes_per_number=2):
    for name, v in (("n", n), ("n_heads", n_heads), ("bytes_per_number", bytes_per_number)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    cells_per_head = int(n) ** 2
    return cells_per_head * int(n_heads) * int(bytes_per_number)


def attention_params(W_q, W_k, W_v, W_o, n_heads):
    shapes = [np.shape(W) for W in (W_q, W_k, W_v, W_o)]
    if any(len(shape) != 2 for shape in shapes):
        raise ValueError(f"each matrix must be 2-D, got {shapes}")
    (d, d_h), (d2, d_h2), (d3, d_v), (d_v2, d_out) = shapes
    if (d, d_h) != (d2, d_h2) or d3 != d or d_v2 != d_v:
        raise ValueError(f"shapes do not fit: {shapes}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1 \
            or d_h % n_heads or d_v % n_heads:
        raise ValueError(f"n_heads = {n_heads!r} must divide {d_h} and {d_v}")
    # a closed form: each head has d_k = d_h / n_heads columns of W_q and W_k, d_v / n_heads of W_v and as many rows of W_o
    return np.full(n_heads, (d * (2 * d_h + d_v) + d_v * d_out) // n_heads, dtype=np.int64)