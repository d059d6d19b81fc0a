"""Correct: every product written with np.einsum (and the heads moved by einsum too)."""

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
    return np.einsum("...d->...", np.abs(X - O)) / X.shape[-1]


def project_qkv(X, W_q, W_k, W_v):
    X = np.asarray(X)
    W_q, W_k, W_v = np.asarray(W_q), np.asarray(W_k), np.asarray(W_v)
    for name, a in (("X", X), ("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers with at least 2 dimensions, got {a.dtype} {a.shape}")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must be ({X.shape[-1]}, _), got {W.shape}")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q {W_q.shape} and W_k {W_k.shape} must give one d_k")
    X, W_q, W_k, W_v = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (X, W_q, W_k, W_v))
    dtype = np.result_type(X, W_q, W_k, W_v)
    X = X.astype(dtype)
    return tuple(np.einsum("...nd,de->...ne", X, W.astype(dtype)) for W in (W_q, W_k, W_v))


def raw_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    for name, a in (("Q", Q), ("K", K)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d_k), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    Q = Q if Q.dtype.kind == "f" else Q.astype(np.float64)
    K = K if K.dtype.kind == "f" else K.astype(np.float64)
    return np.einsum("...qd,...kd->...qk", Q, K)


def scaled_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    for name, a in (("Q", Q), ("K", K)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d_k), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    Q = Q if Q.dtype.kind == "f" else Q.astype(np.float64)
    K = K if K.dtype.kind == "f" else K.astype(np.float64)
    return np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])


def score_spread(d_k, n_samples, rng):
    for name, v in (("d_k", d_k), ("n_samples", n_samples)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("sd,sd->s", q, k)
    centred = dots - dots.mean()
    raw = math.sqrt(np.einsum("s,s->", centred, centred) / n_samples)
    return raw, raw / math.sqrt(d_k)


def largest_weight(d_k, n_keys, scaled, n_trials, rng):
    for name, v in (("d_k", d_k), ("n_keys", n_keys), ("n_trials", n_trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    q = rng.standard_normal((n_trials, d_k))
    k = rng.standard_normal((n_trials, n_keys, d_k))
    s = np.einsum("td,tkd->tk", q, k)
    if scaled:
        s = s / math.sqrt(d_k)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return float(np.mean(1.0 / np.einsum("tk->t", e)))


def attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.dtype.kind not in "fiu" or a.ndim < 2:
            raise ValueError(f"{name} must be real numbers of shape (..., n, d), got {a.dtype} {a.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have one row per key")
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    S = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        n_q, n_k = Q.shape[-2], K.shape[-2]
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, n_k)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n_q}, {n_k})")
        S = S + mask.astype(S.dtype)
    top = S.max(axis=-1, keepdims=True)
    top[np.isneginf(top)] = 0
    e = np.exp(S - top)
    total = np.einsum("...qk->...q", e)[..., None]
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return np.einsum("...qk,...kv->...qv", weights, V.astype(weights.dtype)), weights


def split_heads(M, n_heads):
    M = np.asarray(M)
    if M.dtype.kind not in "fiu" or M.ndim < 2:
        raise ValueError(f"M must be real numbers of shape (..., n, d), got {M.dtype} {M.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    M = M if M.dtype.kind == "f" else M.astype(np.float64)
    n, d = M.shape[-2:]
    if d % n_heads:
        raise ValueError(f"d = {d} of M {M.shape} is not divisible by n_heads = {n_heads}")
    cut = M.reshape(*M.shape[:-1], n_heads, d // n_heads)
    return np.einsum("...nhk->...hnk", cut).copy()


def merge_heads(H):
    H = np.asarray(H)
    if H.dtype.kind not in "fiu" or H.ndim < 3:
        raise ValueError(f"H must be real numbers of shape (..., n_heads, n, d_k), got {H.dtype} {H.shape}")
    H = H if H.dtype.kind == "f" else H.astype(np.float64)
    n_heads, n, d_k = H.shape[-3:]
    return np.einsum("...hnk->...nhk", H).reshape(*H.shape[:-3], n, n_heads * d_k)


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

    def as_float(*arrays):
        return np.result_type(*(a.dtype if a.dtype.kind == "f" else np.float64 for a in arrays))

    tq, tkv = as_float(X, W_q, W_k, W_v), as_float(context, W_q, W_k, W_v)
    # (..., n, d) x (d, h, d_k) -> (..., h, n, d_k): projection and head split in one einsum
    Qh = np.einsum("...nd,dhk->...hnk", X.astype(tq), W_q.astype(tq).reshape(d, h, -1))
    Kh = np.einsum("...nd,dhk->...hnk", context.astype(tkv), W_k.astype(tkv).reshape(d, h, -1))
    Vh = np.einsum("...nd,dhk->...hnk", context.astype(tkv), W_v.astype(tkv).reshape(d, h, -1))
    S = np.einsum("...hqk,...hmk->...hqm", Qh, Kh) / math.sqrt(Qh.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        n, m = X.shape[-2], context.shape[-2]
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, m)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n}, {m})")
        mask = mask.astype(S.dtype)
        S = S + (mask[..., None, :, :] if mask.ndim >= 2 else mask)
    top = S.max(axis=-1, keepdims=True)
    top[np.isneginf(top)] = 0
    e = np.exp(S - top)
    total = np.einsum("...qm->...q", e)[..., None]
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    heads = np.einsum("...hqm,...hmv->...hqv", weights, Vh.astype(weights.dtype))
    # merge and output projection at once: W_o's rows are grouped by head
    W_o = W_o.astype(heads.dtype).reshape(h, heads.shape[-1], W_o.shape[1])
    return np.einsum("...hqv,hvo->...qo", heads, W_o)


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
    scale = 1 / math.sqrt(Q.shape[-1])
    m = np.full((*batch, n_q), -np.inf, dtype=dtype)
    l = np.zeros((*batch, n_q), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        stop = min(n_k, start + block_size)
        s = np.einsum("...qd,...kd->...qk", Q, K[..., start:stop, :]) * scale
        if causal:
            future = np.arange(start, stop)[None, :] > np.arange(n_q)[:, None]
            s = np.where(future, -np.inf, s)
        m_new = np.maximum(m, s.max(axis=-1))
        ref = np.where(np.isneginf(m_new), 0, m_new)
        alpha = np.exp(m - ref)
        p = np.exp(s - ref[..., None])
        l = l * alpha + np.einsum("...qk->...q", p)
        acc = acc * alpha[..., None] + np.einsum("...qk,...kv->...qv", p, V[..., start:stop, :])
        m = m_new
    l = l[..., None]
    return np.divide(acc, l, out=np.zeros_like(acc), where=l > 0)
