"""Mistake: no scaling."""

import numpy as np


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None):
    X = np.asarray(X)
    context = X if context is None else np.asarray(context)
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    for name, a in (("X", X), ("context", context), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be an array of numbers with at least 2 dimensions, got {a.dtype} {a.shape}")
    X, context, W_q, W_k, W_v, W_o = (a if a.dtype.kind == "f" else a.astype(np.float64)
                                      for a in (X, context, W_q, W_k, W_v, W_o))
    d = X.shape[-1]
    if context.shape[-1] != d:
        raise ValueError(f"context must have width {d} like X, got X {X.shape} and context {context.shape}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != d:
            raise ValueError(f"{name} must be ({d}, _), got {W.shape}")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q and W_k must have the same width, got {W_q.shape} and {W_k.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    if W_q.shape[1] % n_heads or W_v.shape[1] % n_heads:
        raise ValueError(f"widths {W_q.shape[1]} and {W_v.shape[1]} must be divisible by n_heads = {n_heads}")
    if W_o.ndim != 2 or W_o.shape[0] != W_v.shape[1]:
        raise ValueError(f"W_o must be ({W_v.shape[1]}, _), got {W_o.shape}")
    n, m = X.shape[-2], context.shape[-2]
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype.kind not in "fiu" or mask.ndim < 1:
            raise ValueError(f"mask must be an array of numbers, got {mask.dtype} {mask.shape}")
        if mask.shape[-1] not in (1, m) or (mask.ndim > 1 and mask.shape[-2] not in (1, n)):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n}, {m})")
        if mask.ndim >= 2:
            mask = mask[..., None, :, :]  # the same mask for every head

    dtype_q = np.result_type(X, W_q, W_k, W_v)
    dtype_kv = np.result_type(context, W_q, W_k, W_v)
    Q = X.astype(dtype_q) @ W_q.astype(dtype_q)
    K = context.astype(dtype_kv) @ W_k.astype(dtype_kv)
    V = context.astype(dtype_kv) @ W_v.astype(dtype_kv)

    def heads(M):
        *batch, rows, width = M.shape
        return np.swapaxes(M.reshape(*batch, rows, n_heads, width // n_heads), -2, -3)

    Qh, Kh, Vh = heads(Q), heads(K), heads(V)
    scores = Qh @ np.swapaxes(Kh, -1, -2)
    if mask is not None:
        scores = scores + mask.astype(scores.dtype)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top).astype(scores.dtype)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    out = weights @ Vh.astype(weights.dtype)
    joined = np.swapaxes(out, -2, -3)
    joined = joined.reshape(*joined.shape[:-2], -1)
    return joined @ W_o.astype(joined.dtype)
