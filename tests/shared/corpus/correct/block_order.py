"""Correct: blockwise with query blocks outside, key blocks inside; masks from np.tri and np.block."""

import math

import numpy as np


def split_heads(M, n_heads):
    M = np.asarray(M)
    if M.dtype.kind not in "fiu" or M.ndim < 2:
        raise ValueError(f"M must be real numbers of shape (..., n, d), got {M.dtype} {M.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    M = M if M.dtype.kind == "f" else M.astype(np.float64)
    *batch, n, d = M.shape
    if d % n_heads:
        raise ValueError(f"d = {d} of M {M.shape} is not divisible by n_heads = {n_heads}")
    return np.moveaxis(M.reshape(*batch, n, n_heads, d // n_heads), -2, -3)


def merge_heads(H):
    H = np.asarray(H)
    if H.dtype.kind not in "fiu" or H.ndim < 3:
        raise ValueError(f"H must be real numbers of shape (..., n_heads, n, d_k), got {H.dtype} {H.shape}")
    H = H if H.dtype.kind == "f" else H.astype(np.float64)
    *batch, n_heads, n, d_k = H.shape
    return np.moveaxis(H, -3, -2).reshape(*batch, n, n_heads * d_k)


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    # np.tri is 1 on and below the diagonal: exactly the pairs a token may see
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got {lengths.shape} {lengths.dtype}")
    if np.any(lengths < 1) or np.any(lengths > n):
        raise ValueError(f"every length must be between 1 and n = {n}, got {lengths.tolist()}")
    key = np.arange(n).reshape(1, 1, n)
    return np.where(key < lengths.reshape(-1, 1, 1), 0.0, -np.inf)


def block_mask(group_sizes, allowed):
    sizes = np.asarray(group_sizes)
    allowed = np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or sizes.min() < 1:
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, got {sizes.tolist()}")
    g = sizes.size
    if allowed.shape != (g, g) or allowed.dtype != bool:
        raise ValueError(f"allowed must be a ({g}, {g}) boolean array, got {allowed.shape} {allowed.dtype}")
    tiles = [[np.full((int(sizes[a]), int(sizes[b])), 0.0 if allowed[a, b] else -np.inf) for b in range(g)]
             for a in range(g)]
    return np.block(tiles)


def blockwise_attention(Q, K, V, block_size=128, causal=False):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have one row per key")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    dtype = np.result_type(Q, K, V)
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    scale = math.sqrt(Q.shape[-1])
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for q0 in range(0, n_q, block_size):
        q1 = min(q0 + block_size, n_q)
        q = Q[..., q0:q1, :] / scale
        rows = np.arange(q0, q1)[:, None]
        m = np.full((*batch, q1 - q0, 1), -np.inf, dtype=dtype)
        l = np.zeros((*batch, q1 - q0, 1), dtype=dtype)
        acc = np.zeros((*batch, q1 - q0, V.shape[-1]), dtype=dtype)
        # with causal, keys past the last query of this block are never needed
        k_end = min(n_k, q1) if causal else n_k
        for k0 in range(0, k_end, block_size):
            k1 = min(k0 + block_size, k_end)
            s = q @ np.swapaxes(K[..., k0:k1, :], -1, -2)
            if causal:
                s = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, s)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            safe = np.where(np.isneginf(m_new), 0, m_new)
            factor = np.exp(m - safe)
            p = np.exp(s - safe)
            l = l * factor + p.sum(axis=-1, keepdims=True)
            acc = acc * factor + p @ V[..., k0:k1, :]
            m = m_new
        out[..., q0:q1, :] = np.divide(acc, l, out=np.zeros_like(acc), where=l > 0)
    return out
