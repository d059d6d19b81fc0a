"""Correct: softmax as exp(s − logsumexp(s)), in attention and largest_weight; blockwise carries a running lse."""

import math

import numpy as np


def largest_weight(d_k, n_keys, scaled, n_trials, rng):
    for name, v in (("d_k", d_k), ("n_keys", n_keys), ("n_trials", n_trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    queries = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    s = np.matmul(keys, queries[..., None])[..., 0]
    if scaled:
        s = s / math.sqrt(d_k)
    top = s.max(axis=-1)
    lse = top + np.log(np.exp(s - top[:, None]).sum(axis=-1))
    # the largest weight is exp(max − logsumexp)
    return float(np.exp(top - lse).mean())


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
    top = np.where(np.isneginf(top), 0, top)
    shifted = T - top
    total = np.exp(shifted).sum(axis=ax, keepdims=True)
    # log(total) is the log-sum-exp of the row (minus its maximum); an empty row has none
    log_total = np.log(total, out=np.full_like(total, np.inf), where=total > 0)
    out = np.exp(shifted - log_total)
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
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        n_q, n_k = Q.shape[-2], K.shape[-2]
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, n_k)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n_q}, {n_k})")
        S = S + mask.astype(S.dtype)
    top = S.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)
    shifted = S - top
    total = np.exp(shifted).sum(axis=-1, keepdims=True)
    log_total = np.log(total, out=np.full_like(total, np.inf), where=total > 0)
    weights = np.exp(shifted - log_total)
    return weights @ V.astype(weights.dtype), weights


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
    Q = Q / math.sqrt(Q.shape[-1])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    # lse: log Σ exp(score) over the keys seen so far; out: the softmax-weighted mean so far
    lse = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2)
        if causal:
            s = np.where(np.arange(start, stop)[None, :] > np.arange(n_q)[:, None], -np.inf, s)
        top = s.max(axis=-1, keepdims=True)
        top = np.where(np.isneginf(top), 0, top)
        block_total = np.exp(s - top).sum(axis=-1, keepdims=True)
        block_lse = top + np.log(block_total, out=np.full_like(block_total, -np.inf), where=block_total > 0)
        new_lse = np.logaddexp(lse, block_lse)
        seen = ~np.isneginf(new_lse)
        ref = np.where(seen, new_lse, 0)
        keep = np.exp(np.where(seen, lse - ref, -np.inf))
        p = np.exp(s - ref)
        out = out * keep + p @ V[..., start:stop, :]
        lse = new_lse
    return out
