"""Correct: explicit Python loops over batches, heads, rows, groups and queries."""

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
    moved = np.empty(X.shape[:-1], dtype=np.result_type(X, O))
    for index in np.ndindex(*X.shape[:-1]):
        moved[index] = np.mean(np.abs(X[index] - O[index]))
    return moved


def score_spread(d_k, n_samples, rng):
    for name, v in (("d_k", d_k), ("n_samples", n_samples)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = [float(q[s] @ k[s]) for s in range(n_samples)]
    spreads = []
    for divisor in (1.0, math.sqrt(d_k)):
        values = [x / divisor for x in dots]
        mean = math.fsum(values) / n_samples
        spreads.append(math.sqrt(math.fsum((x - mean) ** 2 for x in values) / n_samples))
    return spreads[0], spreads[1]


def largest_weight(d_k, n_keys, scaled, n_trials, rng):
    for name, v in (("d_k", d_k), ("n_keys", n_keys), ("n_trials", n_trials)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    queries = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    shares = []
    for t in range(n_trials):
        s = keys[t] @ queries[t]
        if scaled:
            s = s / math.sqrt(d_k)
        e = np.exp(s - s.max())
        shares.append(e.max() / e.sum())
    return float(np.mean(shares))


def softmax(S, axis=-1):
    S = np.asarray(S)
    if S.dtype.kind not in "fiu":
        raise ValueError(f"S must hold real numbers, got dtype {S.dtype}")
    S = S if S.dtype.kind == "f" else S.astype(np.float64)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    rows = np.moveaxis(np.atleast_1d(S), axis, -1)
    out = np.zeros_like(rows)
    for index in np.ndindex(*rows.shape[:-1]):
        row = rows[index]
        if np.all(np.isneginf(row)):
            continue  # nothing may be seen: the weights stay 0
        e = np.exp(row - row.max())
        out[index] = e / e.sum()
    return np.moveaxis(out, -1, axis).reshape(S.shape)


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
    n_q, n_k = Q.shape[-2], K.shape[-2]
    dtype = np.result_type(Q, K)
    if mask is None:
        mask = np.zeros((1, 1), dtype=dtype)
    else:
        mask = np.asarray(mask)
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, n_k)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n_q}, {n_k})")
        mask = mask.astype(dtype)
        if mask.ndim == 1:
            mask = mask[None, :]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], mask.shape[:-2])
    Qb = np.broadcast_to(Q, (*batch, *Q.shape[-2:]))
    Kb = np.broadcast_to(K, (*batch, *K.shape[-2:]))
    Vb = np.broadcast_to(V, (*batch, *V.shape[-2:])).astype(dtype)
    Mb = np.broadcast_to(mask, (*batch, *mask.shape[-2:]))
    output = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    weights = np.zeros((*batch, n_q, n_k), dtype=dtype)
    scale = math.sqrt(Q.shape[-1])
    for b in np.ndindex(*batch):
        scores = Qb[b] @ Kb[b].T / scale + Mb[b]
        for i in range(n_q):
            row = scores[i]
            if np.all(np.isneginf(row)):
                continue
            e = np.exp(row - row.max())
            weights[b][i] = e / e.sum()
        output[b] = weights[b] @ Vb[b]
    return output, weights


def split_heads(M, n_heads):
    M = np.asarray(M)
    if M.dtype.kind not in "fiu" or M.ndim < 2:
        raise ValueError(f"M must be real numbers of shape (..., n, d), got {M.dtype} {M.shape}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    M = M if M.dtype.kind == "f" else M.astype(np.float64)
    d = M.shape[-1]
    if d % n_heads:
        raise ValueError(f"d = {d} of M {M.shape} is not divisible by n_heads = {n_heads}")
    d_k = d // n_heads
    heads = [M[..., m * d_k:(m + 1) * d_k] for m in range(n_heads)]
    return np.stack(heads, axis=-3)


def merge_heads(H):
    H = np.asarray(H)
    if H.dtype.kind not in "fiu" or H.ndim < 3:
        raise ValueError(f"H must be real numbers of shape (..., n_heads, n, d_k), got {H.dtype} {H.shape}")
    H = H if H.dtype.kind == "f" else H.astype(np.float64)
    return np.concatenate([H[..., m, :, :] for m in range(H.shape[-3])], axis=-1)


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
    if W_q.shape[1] % n_heads or W_v.shape[1] % n_heads:
        raise ValueError(f"widths {W_q.shape[1]} and {W_v.shape[1]} must be divisible by n_heads = {n_heads}")
    if W_o.ndim != 2 or W_o.shape[0] != W_v.shape[1]:
        raise ValueError(f"W_o must be ({W_v.shape[1]}, _), got {W_o.shape}")
    n, m = X.shape[-2], context.shape[-2]
    if mask is not None:
        mask = np.asarray(mask)
        if (mask.dtype.kind not in "fiu" or mask.ndim < 1 or mask.shape[-1] not in (1, m)
                or (mask.ndim > 1 and mask.shape[-2] not in (1, n))):
            raise ValueError(f"mask {mask.shape} does not broadcast to (..., {n}, {m})")

    def floating(*arrays):
        return np.result_type(*(a.dtype if a.dtype.kind == "f" else np.float64 for a in arrays))

    tq, tkv = floating(X, W_q, W_k, W_v), floating(context, W_q, W_k, W_v)
    Q = X.astype(tq) @ W_q.astype(tq)
    K = context.astype(tkv) @ W_k.astype(tkv)
    V = context.astype(tkv) @ W_v.astype(tkv)
    dtype = np.result_type(Q, K)
    d_k, d_v = Q.shape[-1] // n_heads, V.shape[-1] // n_heads
    head_outputs = []
    for h in range(n_heads):
        q = Q[..., h * d_k:(h + 1) * d_k]
        k = K[..., h * d_k:(h + 1) * d_k]
        v = V[..., h * d_v:(h + 1) * d_v].astype(dtype)
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(d_k)
        if mask is not None:
            scores = scores + mask.astype(dtype)
        top = scores.max(axis=-1, keepdims=True)
        top = np.where(np.isneginf(top), 0, top)
        e = np.exp(scores - top)
        total = e.sum(axis=-1, keepdims=True)
        weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
        head_outputs.append(weights @ v)
    joined = np.concatenate(head_outputs, axis=-1)
    return joined @ W_o.astype(joined.dtype)


def causal_mask(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    mask = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            mask[i, j] = -np.inf
    return mask


def padding_mask(lengths, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got {lengths.shape} {lengths.dtype}")
    mask = np.zeros((lengths.size, 1, n))
    for b, length in enumerate(lengths.tolist()):
        if not 1 <= length <= n:
            raise ValueError(f"every length must be between 1 and n = {n}, got {lengths.tolist()}")
        mask[b, 0, length:] = -np.inf
    return mask


def block_mask(group_sizes, allowed):
    sizes = np.asarray(group_sizes)
    allowed = np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or sizes.min() < 1:
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, got {sizes.tolist()}")
    g = sizes.size
    if allowed.shape != (g, g) or allowed.dtype != bool:
        raise ValueError(f"allowed must be a ({g}, {g}) boolean array, got {allowed.shape} {allowed.dtype}")
    starts = [0]
    for size in sizes.tolist():
        starts.append(starts[-1] + size)
    mask = np.full((starts[-1], starts[-1]), -np.inf)
    for a in range(g):
        for b in range(g):
            if allowed[a, b]:
                mask[starts[a]:starts[a + 1], starts[b]:starts[b + 1]] = 0.0
    return mask



def source_shares(weights, source, n_sources=None):
    weights, source = np.asarray(weights), np.asarray(source)
    weights = weights if weights.dtype.kind == "f" else weights.astype(np.float64)
    if weights.ndim < 2:
        raise ValueError(f"weights must be (..., n_q, n_k), got shape {weights.shape}")
    if source.ndim != 1 or source.dtype.kind not in "iu" or len(source) != weights.shape[-1]:
        raise ValueError(f"source must be {weights.shape[-1]} integer ids, got {source!r}")
    if (source < 0).any():
        raise ValueError(f"source ids must be 0 or more, got {source.tolist()}")
    if n_sources is None:
        n_sources = int(source.max()) + 1
    if isinstance(n_sources, bool) or not isinstance(n_sources, (int, np.integer)) or n_sources <= source.max():
        raise ValueError(f"n_sources must be an integer larger than every id, got {n_sources!r}")
    shares = np.zeros((*weights.shape[:-1], n_sources), dtype=weights.dtype)
    for index in np.ndindex(*weights.shape[:-1]):
        row = weights[index]
        total = row.sum()
        if total > 0:
            for j, s in enumerate(source.tolist()):
                shares[index + (s,)] += row[j]
            shares[index] /= total
    return shares

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
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Q = np.broadcast_to(Q.astype(dtype), (*batch, *Q.shape[-2:]))
    K = np.broadcast_to(K.astype(dtype), (*batch, *K.shape[-2:]))
    V = np.broadcast_to(V.astype(dtype), (*batch, *V.shape[-2:]))
    scale = math.sqrt(Q.shape[-1])
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    # one query at a time, its keys one block at a time
    for b in np.ndindex(*batch):
        for i in range(n_q):
            q = Q[b][i] / scale
            last = min(n_k, i + 1) if causal else n_k
            best, total = -np.inf, 0.0
            acc = np.zeros(V.shape[-1], dtype=dtype)
            for start in range(0, last, block_size):
                stop = min(start + block_size, last)
                s = K[b][start:stop] @ q
                new_best = max(best, float(s.max()))
                shrink = math.exp(best - new_best)
                p = np.exp(s - new_best)
                total = total * shrink + float(p.sum())
                acc = acc * shrink + p @ V[b][start:stop]
                best = new_best
            if total > 0:
                out[b][i] = acc / total
    return out


def permutation_gaps(X, W_q, W_k, W_v, kernel, perm):
    X, W_q, W_k, W_v, kernel = (np.array(a, dtype=np.float64) for a in (X, W_q, W_k, W_v, kernel))
    if kernel.ndim != 1 or len(kernel) % 2 != 1:
        raise ValueError(f"kernel must be 1-D with an odd number of weights, got shape {kernel.shape}")
    n = len(X)
    if np.ndim(perm) != 1 or len(perm) != n or sorted(int(p) for p in perm) != list(range(n)):
        raise ValueError(f"perm must hold each of 0 ... {n - 1} once, got {list(perm)}")
    perm = [int(p) for p in perm]
    r = len(kernel) // 2

    def mixed(T):
        V = T @ W_v
        out = np.zeros(V.shape, np.result_type(V, kernel))
        for i in range(n):
            for k in range(-r, r + 1):
                if 0 <= i + k < n:
                    out[i] += kernel[k + r] * V[i + k]
        return out

    def attended(T):
        return attention(T @ W_q, T @ W_k, T @ W_v)[0]

    gaps = []
    for f in (attended, mixed):
        moved, before = f(X[perm]), f(X)
        gap = 0.0
        for i in range(n):
            for a, b in zip(moved[i], before[perm[i]]):
                gap = max(gap, abs(float(a) - float(b)))
        gaps.append(gap)
    return tuple(gaps)


def reach(weights):
    A = np.asarray(weights)
    A = A if A.dtype.kind == "f" else A.astype(np.float64)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"weights must be (..., n, n), got shape {A.shape}")
    n = A.shape[-1]
    out = np.zeros(A.shape[:-1], A.dtype)
    for i in range(n):
        for j in range(n):
            out[..., i] += A[..., i, j] * abs(i - j)
    return out
