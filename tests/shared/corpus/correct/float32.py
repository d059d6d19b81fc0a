"""Correct: float32 kept at every step (math.sqrt scales folded into Q, masks cast to the working dtype)."""

import math

import numpy as np


def token_movement(X, O):
    X, O = np.asarray(X), np.asarray(O)
    if X.dtype.kind not in "fiu" or O.dtype.kind not in "fiu":
        raise ValueError(f"X and O must hold real numbers, got {X.dtype} and {O.dtype}")
    if X.ndim < 2 or X.shape != O.shape:
        raise ValueError(f"X and O must be (..., n, d) of one shape, got X {X.shape} and O {O.shape}")
    X = X if X.dtype.kind == "f" else X.astype(np.float64)
    O = O if O.dtype.kind == "f" else O.astype(np.float64)
    diff = np.abs(X - O)
    return diff.sum(axis=-1) * (1.0 / diff.shape[-1])


def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X)
    Ws = [np.asarray(W) for W in (W_q, W_k, W_v)]
    if X.dtype.kind not in "fiu" or X.ndim < 2:
        raise ValueError(f"X must be real numbers of shape (..., n, d), got {X.dtype} {X.shape}")
    for name, W in zip(("W_q", "W_k", "W_v"), Ws):
        if W.dtype.kind not in "fiu" or W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must be real numbers of shape ({X.shape[-1]}, _), got {W.dtype} {W.shape}")
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(f"W_q {Ws[0].shape} and W_k {Ws[1].shape} must give one d_k")
    X, *Ws = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (X, *Ws))
    work = np.result_type(X, *Ws)
    X = X.astype(work, copy=False)
    Q, K, V = (np.matmul(X, W.astype(work, copy=False), dtype=work) for W in Ws)
    return Q, K, V


def raw_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    for name, a in (("Q", Q), ("K", K)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d_k), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    Q, K = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K))
    work = np.result_type(Q, K)
    return np.matmul(Q.astype(work, copy=False), K.astype(work, copy=False).swapaxes(-1, -2))


def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    for name, a in (("Q", Q), ("K", K)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d_k), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    Q, K = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K))
    work = np.result_type(Q, K)
    # a Python float times a float32 array stays float32; np.sqrt(d_k) would be float64
    Q = Q.astype(work, copy=False) * (1.0 / math.sqrt(Q.shape[-1]))
    return np.matmul(Q, K.astype(work, copy=False).swapaxes(-1, -2))


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold real numbers, got dtype {S.dtype}")
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    T = np.atleast_1d(S)
    ax = axis % T.ndim
    top = T.max(axis=ax, keepdims=True)
    top[np.isneginf(top)] = 0.0
    e = np.exp(T - top)
    total = e.sum(axis=ax, keepdims=True)
    out = np.zeros_like(e)
    np.divide(e, total, out=out, where=total > 0)
    return out.reshape(S.shape)


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have one row per key")
    Q, K = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K))
    work = np.result_type(Q, K)
    Qs = Q.astype(work, copy=False) * (1.0 / math.sqrt(Q.shape[-1]))
    S = np.matmul(Qs, K.astype(work, copy=False).swapaxes(-1, -2))
    if mask is not None:
        mask = np.asarray(mask)
        n_q, n_k = Q.shape[-2], K.shape[-2]
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, n_k)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n_q}, {n_k})")
        # the mask is float64: cast it first, or S + mask would be float64
        S = S + mask.astype(work)
    top = S.max(axis=-1, keepdims=True)
    top[np.isneginf(top)] = 0.0
    e = np.exp(S - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.zeros_like(e)
    np.divide(e, total, out=weights, where=total > 0)
    return np.matmul(weights, V.astype(work, copy=False)), weights


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None):
    X = np.asarray(X)
    context = X if context is None else np.asarray(context)
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    for name, a in (("X", X), ("context", context), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers with at least 2 dimensions, got {a.dtype} {a.shape}")
    d = X.shape[-1]
    if context.shape[-1] != d:
        raise ValueError(f"context {context.shape} must have the width of X {X.shape}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != d:
            raise ValueError(f"{name} must be ({d}, _), got {W.shape}")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q {W_q.shape} and W_k {W_k.shape} must give one width")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    h = int(n_heads)
    if W_q.shape[1] % h or W_v.shape[1] % h:
        raise ValueError(f"widths {W_q.shape[1]} and {W_v.shape[1]} must be divisible by n_heads = {h}")
    if W_o.ndim != 2 or W_o.shape[0] != W_v.shape[1]:
        raise ValueError(f"W_o must be ({W_v.shape[1]}, _), got {W_o.shape}")
    n, m = X.shape[-2], context.shape[-2]
    if mask is not None:
        mask = np.asarray(mask)
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, m)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n}, {m})")

    def working(*arrays):
        return np.result_type(*(a.dtype if a.dtype.kind == "f" else np.float64 for a in arrays))

    tq, tkv = working(X, W_q, W_k, W_v), working(context, W_q, W_k, W_v)
    Q = X.astype(tq, copy=False) @ W_q.astype(tq, copy=False)
    K = context.astype(tkv, copy=False) @ W_k.astype(tkv, copy=False)
    V = context.astype(tkv, copy=False) @ W_v.astype(tkv, copy=False)
    work = np.result_type(Q, K)
    d_k, d_v = Q.shape[-1] // h, V.shape[-1] // h
    Qh = np.swapaxes(Q.reshape(*Q.shape[:-1], h, d_k), -2, -3) * (1.0 / math.sqrt(d_k))
    Kh = np.swapaxes(K.reshape(*K.shape[:-1], h, d_k), -2, -3)
    Vh = np.swapaxes(V.reshape(*V.shape[:-1], h, d_v), -2, -3).astype(work, copy=False)
    S = Qh @ Kh.swapaxes(-1, -2)
    if mask is not None:
        mask = mask.astype(work)
        S = S + (mask[..., None, :, :] if mask.ndim >= 2 else mask)
    top = S.max(axis=-1, keepdims=True)
    top[np.isneginf(top)] = 0.0
    e = np.exp(S - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = np.zeros_like(e)
    np.divide(e, total, out=weights, where=total > 0)
    heads = weights @ Vh
    joined = np.swapaxes(heads, -2, -3).reshape(*heads.shape[:-3], n, h * d_v)
    return joined @ W_o.astype(work, copy=False)


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
    work = np.result_type(Q, K, V)
    Q = Q.astype(work, copy=False) * (1.0 / math.sqrt(Q.shape[-1]))
    K, V = K.astype(work, copy=False), V.astype(work, copy=False)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf, dtype=work)
    l = np.zeros((*batch, n_q, 1), dtype=work)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=work)
    forbidden = np.asarray(-np.inf, dtype=work)
    zero = np.zeros((), dtype=work)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ K[..., start:stop, :].swapaxes(-1, -2)
        if causal:
            s = np.where(np.arange(start, stop) > np.arange(n_q)[:, None], forbidden, s)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(m_new), zero, m_new)
        alpha = np.exp(m - shift)
        p = np.exp(s - shift)
        l = l * alpha + p.sum(axis=-1, keepdims=True)
        acc = acc * alpha + p @ V[..., start:stop, :]
        m = m_new
    out = np.zeros_like(acc)
    np.divide(acc, l, out=out, where=l > 0)
    return out
