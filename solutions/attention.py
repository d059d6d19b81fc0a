"""Reference solution for the attention chapter: the answer key of the kit.

Every function here is an exercise in ``source/attention/`` with the same name
and meaning. Shapes are written with ``...`` for any number of leading batch
dimensions. Arrays keep their floating dtype (float32 in, float32 out); integer
input is computed in float64. Bad input raises ``ValueError`` naming the
argument and the shapes involved.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# A forbidden pair in an additive mask.
FORBIDDEN = -np.inf


# ---------------------------------------------------------------- validation


def _as_float(name: str, a, min_ndim: int = 1) -> np.ndarray:
    """`a` as a floating ndarray with at least `min_ndim` dimensions."""
    a = np.asarray(a)
    if a.dtype.kind not in "fiu":
        raise ValueError(f"{name} must hold real numbers, got dtype {a.dtype}")
    if a.dtype.kind != "f":
        a = a.astype(np.float64)
    if a.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions, got shape {a.shape}")
    return a


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _same_dtype(*arrays: np.ndarray) -> np.dtype:
    return np.result_type(*arrays)


# ---------------------------------------------------------------- section 1


def token_movement(X, O) -> np.ndarray:
    """How far each token moved: mean absolute difference per row.

    X: (..., n, d) tokens before attention; O: (..., n, d) after.
    Returns (..., n).
    """
    X, O = _as_float("X", X, 2), _as_float("O", O, 2)
    if X.shape != O.shape:
        raise ValueError(f"X and O must have the same shape, got X {X.shape} and O {O.shape}")
    return np.abs(X - O).mean(axis=-1)


# ---------------------------------------------------------------- section 2


def project_qkv(X, W_q, W_k, W_v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, keys and values: one matrix multiply each.

    X: (..., n, d); W_q, W_k: (d, d_k); W_v: (d, d_v).
    Returns Q (..., n, d_k), K (..., n, d_k), V (..., n, d_v).
    """
    X = _as_float("X", X, 2)
    W = {name: _as_float(name, w, 2) for name, w in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v))}
    for name, w in W.items():
        if w.ndim != 2 or w.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must have shape (d, _) with d = X.shape[-1] = {X.shape[-1]}, "
                             f"got X {X.shape} and {name} {w.shape}")
    if W["W_q"].shape[1] != W["W_k"].shape[1]:
        raise ValueError(f"W_q and W_k must give queries and keys of one size d_k, "
                         f"got W_q {W['W_q'].shape} and W_k {W['W_k'].shape}")
    dtype = _same_dtype(X, *W.values())
    X = X.astype(dtype, copy=False)
    return tuple(X @ w.astype(dtype, copy=False) for w in W.values())


# ---------------------------------------------------------------- section 3


def _check_qk(Q: np.ndarray, K: np.ndarray) -> None:
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must have the same last dimension d_k, got Q {Q.shape} and K {K.shape}")


def raw_scores(Q, K) -> np.ndarray:
    """Every query against every key: Q Kᵀ.

    Q: (..., n_q, d_k); K: (..., n_k, d_k). Returns (..., n_q, n_k).
    """
    Q, K = _as_float("Q", Q, 2), _as_float("K", K, 2)
    _check_qk(Q, K)
    return Q @ np.swapaxes(K, -1, -2)


def scaled_scores(Q, K) -> np.ndarray:
    """Q Kᵀ / √d_k, so the spread of a score does not grow with the head size.

    Q: (..., n_q, d_k); K: (..., n_k, d_k). Returns (..., n_q, n_k).
    """
    S = raw_scores(Q, K)
    # A Python float keeps float32 scores float32 under numpy 2's promotion rules.
    return S / math.sqrt(np.shape(Q)[-1])


def score_spread(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Standard deviation of q·k for random unit-variance q and k, raw and scaled.

    Draws q then k, each ``rng.standard_normal((n_samples, d_k))``.
    Returns (raw_std, scaled_std) as Python floats.
    """
    d_k, n_samples = _positive_int("d_k", d_k), _positive_int("n_samples", n_samples)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("sd,sd->s", q, k)
    return float(dots.std()), float((dots / math.sqrt(d_k)).std())


def largest_weight(d_k: int, n_keys: int, scaled: bool, n_trials: int,
                   rng: np.random.Generator) -> float:
    """Mean share of the winning key when one random query meets `n_keys` random keys.

    Draws the queries ``rng.standard_normal((n_trials, d_k))`` then the keys
    ``rng.standard_normal((n_trials, n_keys, d_k))``; divides by √d_k when
    `scaled`. Returns the mean over trials of the largest softmax weight.
    """
    d_k, n_keys = _positive_int("d_k", d_k), _positive_int("n_keys", n_keys)
    n_trials = _positive_int("n_trials", n_trials)
    q = rng.standard_normal((n_trials, d_k))
    k = rng.standard_normal((n_trials, n_keys, d_k))
    s = np.einsum("td,tkd->tk", q, k)
    if scaled:
        s = s / math.sqrt(d_k)
    return float(softmax(s, axis=-1).max(axis=-1).mean())


def softmax_jacobian(s) -> np.ndarray:
    """How softmax's weights move when its scores move: ``J[..., i, j] = ∂p_i / ∂s_j``.

    s: (..., n) the scores of one query against n keys (any leading batch).
    Returns (..., n, n) ``diag(p) − p pᵀ`` with p = softmax(s): symmetric, each
    row adding up to 0; in s's float dtype (integers in float64).
    Raises ValueError for a 0-d s.
    """
    s = _as_float("s", s, 1)
    p = softmax(s, axis=-1)
    return p[..., :, None] * np.eye(s.shape[-1], dtype=p.dtype) - p[..., :, None] * p[..., None, :]


# ---------------------------------------------------------------- section 4


def softmax(S, axis: int = -1) -> np.ndarray:
    """Weights that are never negative and add up to one along `axis`.

    S: any shape. Stable for scores up to ±1e4 (the largest score is taken
    out before exponentiating); −inf gives a weight of exactly 0; a slice whose
    scores are all −inf gives all-zero weights, with no NaN and no warning.
    """
    S = _as_float("S", S, 0)
    if not -max(S.ndim, 1) <= axis < max(S.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for S of shape {S.shape}")
    top = np.max(S, axis=axis, keepdims=True) if S.ndim else S
    top = np.where(np.isneginf(top), 0, top).astype(S.dtype, copy=False)
    e = np.exp(S - top)
    total = np.sum(e, axis=axis, keepdims=True) if S.ndim else e
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _check_mask(mask: np.ndarray, n_q: int, n_k: int) -> None:
    if mask.ndim < 1 or mask.shape[-1] not in (1, n_k) or (mask.ndim > 1 and mask.shape[-2] not in (1, n_q)):
        raise ValueError(f"mask must broadcast to (..., n_q, n_k) = (..., {n_q}, {n_k}), got mask {mask.shape}")


def attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Scaled dot-product attention: softmax(Q Kᵀ / √d_k + mask) V.

    Q: (..., n_q, d_k); K: (..., n_k, d_k); V: (..., n_k, d_v);
    mask: additive, broadcastable to (..., n_q, n_k): 0 allows a pair, −inf forbids it.
    Cross-attention is simply n_q ≠ n_k.
    Returns (output (..., n_q, d_v), weights (..., n_q, n_k)).
    """
    Q, K, V = _as_float("Q", Q, 2), _as_float("K", K, 2), _as_float("V", V, 2)
    _check_qk(Q, K)
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must hold one row per key, got K {K.shape} and V {V.shape}")
    S = scaled_scores(Q, K)
    if mask is not None:
        mask = _as_float("mask", mask, 1)
        _check_mask(mask, Q.shape[-2], K.shape[-2])
        S = S + mask.astype(S.dtype, copy=False)
    weights = softmax(S, axis=-1)
    return weights @ V.astype(weights.dtype, copy=False), weights


# ---------------------------------------------------------------- section 5


def split_heads(M, n_heads: int) -> np.ndarray:
    """Cut the last dimension into heads: head m owns columns m·d_k … (m+1)·d_k − 1.

    M: (..., n, d) with d divisible by n_heads. Returns (..., n_heads, n, d // n_heads).
    """
    M = _as_float("M", M, 2)
    n_heads = _positive_int("n_heads", n_heads)
    n, d = M.shape[-2:]
    if d % n_heads:
        raise ValueError(f"the width d = {d} of M {M.shape} is not divisible by n_heads = {n_heads}")
    return np.swapaxes(M.reshape(*M.shape[:-1], n_heads, d // n_heads), -2, -3)


def merge_heads(H) -> np.ndarray:
    """Write the heads side by side again: the inverse of `split_heads`.

    H: (..., n_heads, n, d_k). Returns (..., n, n_heads · d_k).
    """
    H = _as_float("H", H, 3)
    n_heads, n, d_k = H.shape[-3:]
    return np.swapaxes(H, -2, -3).reshape(*H.shape[:-3], n, n_heads * d_k)


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads: int, mask=None, context=None) -> np.ndarray:
    """Several heads side by side, joined by the output projection.

    X: (..., n, d) the tokens that ask; context: (..., m, d) the tokens that
    answer (defaults to X: self-attention; otherwise cross-attention).
    W_q, W_k, W_v: (d, d_h) with d_h divisible by n_heads; W_o: (d_h, d_out).
    mask: additive, broadcastable to (..., n, m); the same mask serves every head.
    Returns (..., n, d_out).
    """
    X = _as_float("X", X, 2)
    context = X if context is None else _as_float("context", context, 2)
    if context.shape[-1] != X.shape[-1]:
        raise ValueError(f"context must have the width d = {X.shape[-1]} of X, "
                         f"got X {X.shape} and context {context.shape}")
    W_o = _as_float("W_o", W_o, 2)
    n_heads = _positive_int("n_heads", n_heads)
    Q, _, _ = project_qkv(X, W_q, W_k, W_v)
    _, K, V = project_qkv(context, W_q, W_k, W_v)
    for name, M in (("W_q", Q), ("W_v", V)):
        if M.shape[-1] % n_heads:
            raise ValueError(f"{name} gives width {M.shape[-1]}, which is not divisible by n_heads = {n_heads}")
    if W_o.shape[0] != V.shape[-1]:
        raise ValueError(f"W_o must have shape ({V.shape[-1]}, _) to take the joined heads, got W_o {W_o.shape}")
    if mask is not None:
        mask = _as_float("mask", mask, 1)
        _check_mask(mask, X.shape[-2], context.shape[-2])
        mask = np.expand_dims(mask, -3) if mask.ndim >= 2 else mask
    heads, _ = attention(split_heads(Q, n_heads), split_heads(K, n_heads), split_heads(V, n_heads), mask)
    joined = merge_heads(heads)
    return joined @ W_o.astype(joined.dtype, copy=False)


def head_score_ranks(X, W_q, W_k, n_heads: int) -> np.ndarray:
    """The rank of each head's score grid: how many independent directions a head can compare along.

    X: (n, d) tokens; W_q, W_k: (d, d_h) with d_h divisible by n_heads.
    Returns (n_heads,) int64: head m's rank of Q_m K_mᵀ (np.linalg.matrix_rank's
    default tolerance), at most min(n, d_h // n_heads).
    Raises ValueError when X is not 2-D, the matrices do not fit X, or n_heads does not divide d_h.
    """
    X, W_q, W_k = _as_float("X", X, 2), _as_float("W_q", W_q, 2), _as_float("W_k", W_k, 2)
    if X.ndim != 2 or W_q.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[1]:
        raise ValueError(f"X must be (n, d) and W_q, W_k (d, d_h), got X {X.shape}, W_q {W_q.shape}, W_k {W_k.shape}")
    scores = raw_scores(split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads))
    return np.linalg.matrix_rank(scores).astype(np.int64)


# ---------------------------------------------------------------- section 6


def causal_mask(n: int) -> np.ndarray:
    """Forbid every token from seeing the tokens after it.

    Returns (n, n) float64: 0 on and below the diagonal, −inf above it.
    """
    n = _positive_int("n", n)
    return np.triu(np.full((n, n), FORBIDDEN), k=1)


def padding_mask(lengths, n: int) -> np.ndarray:
    """Forbid the key positions at or past each sequence's length.

    lengths: (b,) true lengths, each between 1 and n. Returns (b, 1, n) float64,
    which broadcasts over the queries of each sequence.
    """
    n = _positive_int("n", n)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or lengths.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D array of integers, got shape {lengths.shape} "
                         f"and dtype {lengths.dtype}")
    if lengths.min() < 1 or lengths.max() > n:
        raise ValueError(f"every length must be between 1 and n = {n}, got {lengths.tolist()}")
    forbidden = np.arange(n)[None, :] >= lengths[:, None]
    return np.where(forbidden, FORBIDDEN, 0.0)[:, None, :]


def block_mask(group_sizes, allowed) -> np.ndarray:
    """Lay out which groups of a mixed input may look at which.

    group_sizes: (g,) positive sizes; allowed: (g, g) booleans, ``allowed[a][b]``
    says whether group a may look at group b. Returns (N, N) float64, N = Σ sizes.
    """
    sizes = np.asarray(group_sizes)
    allowed = np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or sizes.min() < 1:
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, got {sizes.tolist()}")
    if allowed.shape != (sizes.size, sizes.size) or allowed.dtype != bool:
        raise ValueError(f"allowed must be booleans of shape ({sizes.size}, {sizes.size}), "
                         f"got shape {allowed.shape} and dtype {allowed.dtype}")
    group = np.repeat(np.arange(sizes.size), sizes)
    return np.where(allowed[group[:, None], group[None, :]], 0.0, FORBIDDEN)


def source_shares(weights, source, n_sources: int | None = None) -> np.ndarray:
    """How each query's weight divides among the sources its keys came from (the short chapter's security link).

    weights: (..., n_q, n_k) attention weights; source: (n_k,) non-negative integer ids,
    source[j] the source of key j; n_sources: how many sources, larger than every id
    (None: source.max() + 1). Returns (..., n_q, n_sources) in weights' float dtype: the
    weight query i gives the keys of source s over the total weight of row i; a source
    with no key gets a column of zeros, a row without weight a row of zeros.
    """
    weights = _as_float("weights", weights, 2)
    source = np.asarray(source)
    n_k = weights.shape[-1]
    if source.ndim != 1 or source.dtype.kind not in "iu" or source.shape[0] != n_k:
        raise ValueError(f"source must be a 1-D integer array of one id per key, {n_k} of them for weights "
                         f"{weights.shape}, got shape {source.shape} and dtype {source.dtype}")
    if n_k and source.min() < 0:
        raise ValueError(f"source ids must be 0 or more, got {source.tolist()}")
    if n_sources is None:
        if not n_k:
            raise ValueError("with no keys, n_sources must be given")
        n_sources = int(source.max()) + 1
    n_sources = _positive_int("n_sources", n_sources)
    if n_k and source.max() >= n_sources:
        raise ValueError(f"n_sources = {n_sources} must be larger than every id, got ids up to {source.max()}")
    one_hot = (source[:, None] == np.arange(n_sources)[None, :]).astype(weights.dtype)
    summed = weights @ one_hot
    total = weights.sum(axis=-1, keepdims=True)
    return summed / np.where(total > 0, total, np.inf)  # a row without weight: 0 / ∞ = 0, never 0 / 0


# ---------------------------------------------------------------- section 7


# Each matrix product is one tile of queries against one block of keys. numpy's
# BLAS (OpenBLAS) splits a product of 2¹⁹ multiply-adds or more over threads of
# its own, which would then fight ours for the cores: tiles are made half that.
_PRODUCT = 2**18
# Most queries that one thread carries through all the key blocks: their scores
# against one block (512 · block_size numbers) stay in the core's own cache.
_ROWS_PER_TASK = 512


def blockwise_attention(Q, K, V, block_size: int = 128, causal: bool = False) -> np.ndarray:
    """Attention computed one tile at a time, never holding the n_q × n_k grid.

    Q: (..., n_q, d_k); K: (..., n_k, d_k); V: (..., n_k, d_v).
    Returns the output (..., n_q, d_v), equal to `attention`'s. With `causal`,
    key j is forbidden to query i when j > i.

    The keys go in blocks of `block_size`, the queries in tiles (32 rows at
    the default and d = 64). Every query keeps a running maximum score, a
    running sum of exponentials and a running weighted sum of values; each new
    key block rescales them by exp(old max − new max). What FlashAttention
    does, in numpy:

    - the tiles are independent, so groups of them go to different cores
      (threads: numpy lets go of Python's lock inside each call);
    - each matrix product is one tile against one key block: small enough to
      stay in the core's cache and on the thread that asked for it;
    - with `causal`, the key blocks after a group's last query are skipped,
      not masked: half the work is never done;
    - 1/√d_k is folded into the queries once, and each step works in place,
      in buffers made before the loop.

    Memory grows with n_q · d + cores · 512 · block_size, not with n_q · n_k.

    Why block_size = 128 (benchmarks/REPORT.md sweeps 32 to 1024 at n = 2048
    and 8192): on one core, in CPU time, which a busy machine barely disturbs,
    it was the fastest or within 6% of the fastest in every case; 32 and 1024
    were 1.3 to 1.9 times slower. The tiles are sized so that a product has
    2¹⁸ multiply-adds: a smaller block means more numpy calls and more
    rescaling per score, a larger one thinner tiles (16 rows at 256, 4 at
    1024), whose products run further below the BLAS peak.
    """
    Q, K, V = _as_float("Q", Q, 2), _as_float("K", K, 2), _as_float("V", V, 2)
    _check_qk(Q, K)
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must hold one row per key, got K {K.shape} and V {V.shape}")
    block_size = _positive_int("block_size", block_size)
    dtype = _same_dtype(Q, K, V)
    Q, K, V = (a.astype(dtype, copy=False) for a in (Q, K, V))
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, d_k, d_v = Q.shape[-2], Q.shape[-1], V.shape[-1]
    rows = _tile_rows(n_q, min(block_size, K.shape[-2]), max(d_k, d_v))
    # Scaled once and cut into tiles, the last one padded with zeros.
    n_tiles = -(-n_q // rows)
    tiles = np.zeros((*batch, n_tiles * rows, d_k), dtype)
    np.multiply(Q, 1 / math.sqrt(d_k), out=tiles[..., :n_q, :])
    tiles = tiles.reshape(*batch, n_tiles, rows, d_k)
    out = np.zeros((*batch, n_tiles, rows, d_v), dtype)

    def attend(group: slice) -> None:
        _attend_tiles(tiles[..., group, :, :], K, V, group.start * rows, block_size, causal,
                      out=out[..., group, :, :])

    _on_every_core(attend, n_tiles, most=max(1, _ROWS_PER_TASK // rows))
    return out.reshape(*batch, n_tiles * rows, d_v)[..., :n_q, :]


def _tile_rows(n_q: int, keys: int, d: int) -> int:
    """Queries per tile: a product of one tile with `keys` keys is at most 2¹⁸ multiply-adds."""
    return max(1, min(n_q, _ROWS_PER_TASK, _PRODUCT // max(1, keys * d)))


def _attend_tiles(q, K, V, first_query: int, block_size: int, causal: bool, out: np.ndarray) -> None:
    """The online softmax for a group of query tiles, written into `out`.

    q: (..., t, rows, d_k) scaled query tiles, the first row being query
    `first_query`; K: (..., n_k, d_k); V: (..., n_k, d_v); out: (..., t, rows, d_v).
    """
    t, rows = q.shape[-3:-1]
    query = first_query + np.arange(t * rows).reshape(t, rows, 1)
    # No query of the group may see a key after the group's last query.
    n_seen = min(K.shape[-2], first_query + t * rows) if causal else K.shape[-2]
    running_max = np.full((*q.shape[:-1], 1), -np.inf, q.dtype)
    new_max, running_sum = np.empty_like(running_max), np.zeros_like(running_max)
    acc, mixed = np.zeros(out.shape, q.dtype), np.empty(out.shape, q.dtype)
    scores = np.empty((*q.shape[:-1], min(block_size, n_seen)), q.dtype)
    # A new axis lets one key block meet every tile of the group.
    K_T, V = np.swapaxes(K, -1, -2)[..., None, :, :], V[..., None, :, :]
    # Blocks go in order, so every query meets key 0 in the first one and its
    # running maximum is finite from then on: no −∞ − (−∞).
    for start in range(0, n_seen, block_size):
        stop = min(start + block_size, n_seen)
        s = scores[..., :stop - start]
        np.matmul(q, K_T[..., start:stop], out=s)
        if causal and stop - 1 > first_query:
            np.copyto(s, -np.inf, where=np.arange(start, stop) > query)
        np.maximum(running_max, np.max(s, axis=-1, keepdims=True, out=new_max), out=new_max)
        p = np.exp(np.subtract(s, new_max, out=s), out=s)
        # exp(old max − new max): how much what was summed so far shrinks.
        rescale = np.exp(np.subtract(running_max, new_max, out=running_max), out=running_max)
        running_sum *= rescale
        running_sum += p.sum(axis=-1, keepdims=True)
        acc *= rescale
        acc += np.matmul(p, V[..., start:stop, :], out=mixed)
        running_max, new_max = new_max, running_max
    # Only with no keys at all is a sum 0; those rows stay 0.
    np.divide(acc, running_sum, out=out, where=running_sum > 0)


def _on_every_core(work, n_tiles: int, most: int) -> None:
    """work(group) for groups of at most `most` of the `n_tiles` tiles, one thread per core.

    Every core gets a group when there are tiles enough. The last groups go
    first: with `causal` they see the most keys.
    """
    cores = os.cpu_count() or 1
    size = max(1, min(most, -(-n_tiles // cores)))
    groups = [slice(start, min(start + size, n_tiles)) for start in range(0, n_tiles, size)][::-1]
    if cores == 1 or len(groups) <= 1:
        for group in groups:
            work(group)
        return
    with ThreadPoolExecutor(min(cores, len(groups))) as pool:
        list(pool.map(work, groups))  # list() re-raises the first error


def _layer_matrices(W_q, W_k, W_v, W_o) -> dict[str, np.ndarray]:
    """The four matrices of one attention layer by name, checked to fit: W_q, W_k (d, d_h), W_v (d, d_v),
    W_o (d_v, d_out), every width at least 1. Raises ValueError naming the shapes otherwise."""
    W = {name: _as_float(name, w, 2) for name, w in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o))}
    if any(w.ndim != 2 or w.size == 0 for w in W.values()) or W["W_q"].shape != W["W_k"].shape or \
            W["W_v"].shape[0] != W["W_q"].shape[0] or W["W_o"].shape[0] != W["W_v"].shape[1]:
        raise ValueError("W_q, W_k must be (d, d_h), W_v (d, d_v) and W_o (d_v, d_out), none of them empty, got "
                         + ", ".join(f"{name} {w.shape}" for name, w in W.items()))
    return W


def projection_flops(n: int, d: int) -> int:
    """Multiply-and-add steps of the four projections (Q, K, V and output): 4·n·d²."""
    return 4 * _positive_int("n", n) * _positive_int("d", d) ** 2


def score_flops(n: int, d: int) -> int:
    """Multiply-and-add steps of the scores and the mixing: 2·n²·d."""
    return 2 * _positive_int("n", n) ** 2 * _positive_int("d", d)


def attention_share(n: int, d: int) -> float:
    """Fraction of one layer's attention work spent on the n × n grid."""
    grid = score_flops(n, d)
    return grid / (grid + projection_flops(n, d))


def crossover_length(W_q, W_k, W_v, W_o) -> int:
    """The fewest tokens at which the score grid costs at least as much as the four projections.

    W_q, W_k: (d, d_h); W_v: (d, d_v); W_o: (d_v, d_out). Only their shapes matter.
    Returns an int, the smallest n with n²·(d_h + d_v) ≥ n·(2·d·d_h + d·d_v + d_v·d_out): scores and
    mixing against the Q, K, V and output projections. That is 2·d whenever d_out = d, whatever the heads' widths.
    Raises ValueError when a matrix is not a non-empty 2-D array or the four do not fit each other.
    """
    W = _layer_matrices(W_q, W_k, W_v, W_o)
    (d, d_h), (_, d_v), (_, d_out) = W["W_q"].shape, W["W_v"].shape, W["W_o"].shape
    per_token = 2 * d * d_h + d * d_v + d_v * d_out  # n times this for the projections
    per_pair = d_h + d_v  # n² times this for the grid
    return -(-per_token // per_pair)  # the smallest whole n ≥ per_token / per_pair


def score_grid_bytes(n: int, n_heads: int, bytes_per_number: int = 2) -> int:
    """Bytes to hold every head's n × n score grid of one layer."""
    return (_positive_int("n", n) ** 2 * _positive_int("n_heads", n_heads)
            * _positive_int("bytes_per_number", bytes_per_number))


def attention_params(W_q, W_k, W_v, W_o, n_heads: int) -> np.ndarray:
    """The weights each head of an attention layer owns (section 5).

    W_q, W_k: (d, d_h); W_v: (d, d_v); W_o: (d_v, d_out); n_heads divides d_h and d_v.
    Returns (n_heads,) int64: head m's columns of W_q, W_k and W_v (its slices, as split_heads cuts a
    matrix's columns) and its rows of W_o, d·(2·d_h + d_v)/n_heads + d_v·d_out/n_heads each. Together they
    are every weight of the four matrices: 4·d² at d_h = d_v = d_out = d, however many heads.
    Raises ValueError when the matrices do not fit each other or n_heads does not divide their widths.
    """
    W = _layer_matrices(W_q, W_k, W_v, W_o)
    slices = [split_heads(W["W_q"], n_heads), split_heads(W["W_k"], n_heads), split_heads(W["W_v"], n_heads),
              split_heads(W["W_o"].T, n_heads)]  # W_o's rows m·d_k … are the columns of its transpose
    return np.array([sum(part[m].size for part in slices) for m in range(n_heads)], dtype=np.int64)


# ---------------------------------------------------------------- exercises on the chapter's claims
# Each measures one thing the chapter asserts, so that a student shows it by computing.


def self_preference(S) -> tuple[float, float]:
    """How far a square score grid is from symmetric, and how often a token prefers itself (section 2).

    S: (n, n) scores of n tokens against the same n tokens.
    Returns (asymmetry, self_share): asymmetry = max |S[i, j] − S[j, i]|, 0.0 for a
    symmetric grid; self_share = the fraction of rows i whose own score S[i, i]
    is the largest of the row (ties count).
    """
    S = _as_float("S", S, 2)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square (n, n) grid, got shape {S.shape}")
    asymmetry = float(np.abs(S - S.T).max())
    return asymmetry, float((np.diagonal(S) >= S.max(axis=1)).mean())


def _permutation(name: str, perm, n: int) -> np.ndarray:
    """`perm` as an (n,) integer array holding each of 0 … n − 1 once, or a ValueError."""
    perm = np.asarray(perm)
    # Sorted, a permutation is 0 … n − 1 exactly: a repeat, a gap or any other shape is unequal.
    if perm.dtype.kind not in "iu" or not np.array_equal(np.sort(perm), np.arange(n)):
        raise ValueError(f"{name} must hold each position 0 … {n - 1} of the {n} tokens once, got {perm.tolist()!r}")
    return perm


def _fixed_mix(V: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """A convolution of the rows of V: output i is Σ_k kernel[k + r] · V[i + k], k = −r … r, zero-padded.

    V: (n, d_v); kernel: (2r + 1,), kernel[0] weighing the row r places before (permutation_gaps has
    checked it). Not an exercise: permutation_gaps's helper.
    """
    r = kernel.size // 2
    # np.eye(n, k=k) holds a 1 where column j = row i + k: row i takes kernel[k + r] of row i + k.
    return sum(kernel[k + r] * np.eye(len(V), k=k) for k in range(-r, r + 1)) @ V


def permutation_gaps(X, W_q, W_k, W_v, kernel, perm) -> tuple[float, float]:
    """How far attention and a fixed-pattern mix are from following a shuffle of the tokens (section 1).

    X: (n, d) one sentence; W_q, W_k: (d, d_k); W_v: (d, d_v); kernel: (2r + 1,)
    weights by offset (see _fixed_mix); perm: (n,) a permutation of 0 … n − 1.
    f(X) is attention's output on X's own queries, keys and values, or _fixed_mix(X W_v, kernel).
    Returns (attention_gap, fixed_gap), each max |f(X[perm]) − f(X)[perm]|, Python floats
    computed in float64 whatever the inputs' dtype. Attention's is 0 up to float64 rounding.
    Raises ValueError when perm is not a permutation of 0 … n − 1 or kernel is not 1-D of odd length.
    """
    # X in float64 makes every product below float64, whatever the matrices and the kernel hold.
    X = _as_float("X", X, 2).astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be one sentence (n, d), got shape {X.shape}")
    kernel = np.asarray(kernel)
    if kernel.ndim != 1 or kernel.size % 2 == 0:
        raise ValueError(f"kernel must be 1-D with an odd number of weights, got shape {kernel.shape}")
    perm = _permutation("perm", perm, X.shape[0])

    def attended(T):
        return attention(*project_qkv(T, W_q, W_k, W_v))[0]

    def mixed(T):
        return _fixed_mix(project_qkv(T, W_q, W_k, W_v)[2], kernel)

    return tuple(float(np.abs(f(X[perm]) - f(X)[perm]).max()) for f in (attended, mixed))


def reach(weights) -> np.ndarray:
    """How far each query reads: the weighted average distance Σ_j A[i, j] · |i − j| (section 1).

    weights: (..., n, n) self-attention weights, row i those of query i over the n keys.
    Returns (..., n) in weights' float dtype (integers give float64). A convolution of
    width 2r + 1 never reaches past r; attention's reach follows what the tokens hold.
    Raises ValueError when weights has fewer than 2 dimensions or is not square in the last two.
    """
    A = _as_float("weights", weights, 2)
    if A.shape[-1] != A.shape[-2]:
        raise ValueError(f"weights must be (..., n, n), one row per query of the same n tokens, got shape {A.shape}")
    position = np.arange(A.shape[-1])
    distance = np.abs(position[:, None] - position[None, :]).astype(A.dtype)
    return (A * distance).sum(axis=-1)


def lead_share(lead) -> np.ndarray:
    """The weight softmax gives the leading key of two whose scores differ by `lead` (section 4).

    lead: (...) score leads (a number or an array). Returns (...) in lead's float
    dtype (integers give float64): e^lead / (e^lead + 1), 0.5 at no lead and
    1.0 as the lead grows (a soft lookup turning into a hard match).
    """
    lead = _as_float("lead", lead, 0)
    return softmax(np.stack([lead, np.zeros_like(lead)], axis=-1))[..., 0]


def layer_counts(n: int, d: int, n_heads: int) -> tuple[int, int, int]:
    """The sizes of one attention layer on n tokens of width d (section 4).

    Returns (numbers in each of the token, query, key, value and output grids: n·d,
    numbers in one head's score grid: n², numbers in every head's score grid: n_heads·n²).
    Raises ValueError on a non-positive size or when n_heads does not divide d.
    """
    n, d, n_heads = _positive_int("n", n), _positive_int("d", d), _positive_int("n_heads", n_heads)
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return n * d, n * n, n_heads * n * n


def head_patterns(X, W_q, W_k, n_heads: int) -> np.ndarray:
    """The attention pattern of each head of one layer: where each token looks, head by head (section 5).

    X: (..., n, d) tokens; W_q, W_k: (d, d_h) with d_h divisible by n_heads.
    Returns (..., n_heads, n, n): head m's softmax(Q_m K_mᵀ / √d_k) over the keys, every row summing to 1.
    A model of L such layers makes L · n_heads patterns of every input. Float32 in gives float32 out.
    Raises ValueError when the matrices do not fit X or each other, or n_heads does not divide d_h.
    """
    X, W_q, W_k = _as_float("X", X, 2), _as_float("W_q", W_q, 2), _as_float("W_k", W_k, 2)
    if W_q.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[-1]:
        raise ValueError(f"W_q and W_k must both be (d, d_h) with d = X.shape[-1], "
                         f"got X {X.shape}, W_q {W_q.shape}, W_k {W_k.shape}")
    dtype = _same_dtype(X, W_q, W_k)
    X = X.astype(dtype, copy=False)
    Q, K = (split_heads(X @ W.astype(dtype, copy=False), n_heads) for W in (W_q, W_k))
    return softmax(scaled_scores(Q, K))


def first_changed_output(X, W_q, W_k, W_v, j: int, mask=None) -> int:
    """The first output position that changes when token j changes (section 6).

    X: (n, d) tokens; W_q, W_k, W_v as for project_qkv; j: 0 ≤ j < n; mask: as for attention.
    Adds 1.0 to every number of token j, runs attention again, and returns the
    smallest i whose output row differs in any number from before; n when none does.
    """
    X = _as_float("X", X, 2)
    if X.ndim != 2:
        raise ValueError(f"X must be (n, d), got shape {X.shape}")
    n = X.shape[0]
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < n:
        raise ValueError(f"j must be an integer position between 0 and n - 1 = {n - 1}, got {j!r}")
    changed = X.copy()
    changed[j] += 1.0
    before, _ = attention(*project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = attention(*project_qkv(changed, W_q, W_k, W_v), mask)
    differs = np.flatnonzero((before != after).any(axis=-1))
    return int(differs[0]) if differs.size else n


def padding_leak(weights, lengths) -> np.ndarray:
    """How much weight real tokens give to padding (section 6 and section 9's quiet bug).

    weights: (b, n, n) attention weights of a padded batch; lengths: (b,) the true
    lengths, each between 1 and n. Returns (b,) in weights' float dtype: for sequence k, the
    largest total weight a real query (i < lengths[k]) puts on padding keys
    (j ≥ lengths[k]); 0.0 for a sequence without padding.
    """
    weights = _as_float("weights", weights, 3)
    lengths = np.asarray(lengths)
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"weights must be (b, n, n), got shape {weights.shape}")
    b, n, _ = weights.shape
    if lengths.shape != (b,) or lengths.dtype.kind not in "iu" or (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"lengths must be ({b},) integers between 1 and n = {n}, got {lengths!r}")
    position = np.arange(n)
    padding_key = position[None, None, :] >= lengths[:, None, None]
    real_query = position[None, :] < lengths[:, None]
    on_padding = np.where(padding_key, weights, 0.0).sum(axis=-1)
    return np.where(real_query, on_padding, 0.0).max(axis=-1)


def mlp_flops(n: int, d: int) -> int:
    """Multiply-and-add steps of a block's MLP on n tokens of width d: d → 4d → d, 8·n·d²."""
    return 2 * _positive_int("n", n) * _positive_int("d", d) * 4 * d


def grid_over_mlp(n: int, d: int) -> float:
    """The score grid's work (scores and mixing) over the MLP's: n / (4·d)."""
    return score_flops(n, d) / mlp_flops(n, d)


# ---------------------------------------------------------------- check yourself, by computation


def hull_excess(O, V, allowed=None) -> np.ndarray:
    """How far each output row lies outside the box around the value rows it may see.

    O: (n_q, d_v) outputs; V: (n_k, d_v) value rows; allowed: (n_q, n_k) booleans,
    True where query i may see value row j (None: every row is visible); every
    query must see at least one row. Returns (n_q,) in the inputs' float dtype: the largest amount
    by which a number of O[i] lies above the largest, or below the smallest, of
    that number over the visible value rows; 0.0 when O[i] lies inside the box.
    A convex combination lies inside the convex hull, and the hull inside the box.
    """
    O, V = _as_float("O", O, 2), _as_float("V", V, 2)
    if O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]:
        raise ValueError(f"O and V must be (n_q, d_v) and (n_k, d_v), got O {O.shape} and V {V.shape}")
    allowed = np.ones((O.shape[0], V.shape[0]), dtype=bool) if allowed is None else np.asarray(allowed)
    if allowed.dtype != bool or allowed.shape != (O.shape[0], V.shape[0]) or not allowed.any(axis=1).all():
        raise ValueError(f"allowed must be ({O.shape[0]}, {V.shape[0]}) booleans with a True in every row, "
                         f"got {allowed.dtype} {allowed.shape}")
    visible = allowed[:, :, None]
    top = np.where(visible, V[None], -np.inf).max(axis=1)
    bottom = np.where(visible, V[None], np.inf).min(axis=1)
    outside = np.maximum(O - top, bottom - O)
    return np.maximum(outside, 0.0).max(axis=1)


def head_columns(d: int, n_heads: int) -> np.ndarray:
    """Which numbers of a token of width d each of n_heads heads gets (section 5), found with split_heads.

    Puts the row 0, 1, …, d − 1 (a token whose numbers are their own column positions) through
    split_heads. Returns an (n_heads, d // n_heads) int64 array: row m lists the columns head m gets.
    Raises ValueError when d is not a positive integer or n_heads does not divide d.
    """
    d = _positive_int("d", d)
    return split_heads(np.arange(d)[None], n_heads)[:, 0, :].astype(np.int64)


def leaked_targets(X, mask) -> int:
    """How many positions can read the token they are trained to predict, measured by changing it.

    X: (n, d) tokens, their own queries, keys and values; mask: (n, n) additive (0 allows, −inf forbids).
    Position i (0 ≤ i ≤ n − 2) is trained to predict token i + 1. Runs attention(X, X, X, mask); then, for
    each i, adds 1.0 to every number of token i + 1 (on a copy) and runs it again: position i leaks when
    output row i differs in any number (exact comparison). Returns the number of leaking positions, an
    int: 0 for a causal mask, n − 1 without one.
    Raises ValueError when X is not 2-D or mask is not (n, n).
    """
    X = _as_float("X", X, 2)
    if X.ndim != 2:
        raise ValueError(f"X must be (n, d), got shape {X.shape}")
    n = X.shape[0]
    mask = _as_float("mask", mask, 0)
    if mask.shape != (n, n):
        raise ValueError(f"mask must be ({n}, {n}) for X of {n} tokens, got shape {mask.shape}")
    before, _ = attention(X, X, X, mask)
    leaks = 0
    for i in range(n - 1):
        changed = X.copy()
        changed[i + 1] += 1.0
        after, _ = attention(changed, changed, changed, mask)
        leaks += bool((after[i] != before[i]).any())
    return leaks


def gradient_size(Q, K) -> tuple[float, float]:
    """How much softmax's weights still move with their scores, raw and scaled by √d_k (section 3).

    Q: (t, d_k) queries; K: (t, n_k, d_k), the n_k keys query m meets (K[m]).
    The raw scores of query m are K[m] @ Q[m]; its gradient size is the Frobenius norm of
    softmax_jacobian of those scores. Returns (mean size over the t queries at the raw scores,
    mean size at the scores divided by √d_k), Python floats computed in float64.
    Raises ValueError when Q is not (t, d_k) or K not (t, n_k, d_k) with the same t and d_k.
    """
    Q, K = _as_float("Q", Q, 2), _as_float("K", K, 3)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k) with the same t and d_k, "
                         f"got Q {Q.shape} and K {K.shape}")
    raw = np.einsum("td,tkd->tk", Q.astype(np.float64), K.astype(np.float64))
    raw_size, scaled_size = (float(np.linalg.norm(softmax_jacobian(s), axis=(-2, -1)).mean())
                             for s in (raw, raw / math.sqrt(Q.shape[1])))
    return raw_size, scaled_size


# ---------------------------------------------------------------- the chapter's claims, on the explorer's model


def prefix_gaps(Q, K, V, mask) -> np.ndarray:
    """How far each position's output is from the one it gets when the sequence stops there (teacher forcing).

    Q, K: (n, d_k); V: (n, d_v); mask: (n, n) additive (0 allows a pair, −inf forbids it).
    Runs attention once on all n tokens, then for each i on the first i + 1 tokens alone
    (Q, K, V and the mask cut to them). Returns (n,) in the dtype of attention's output:
    gap i is the largest |difference| between row i of the first run and the last row of
    the second. A causal mask makes every gap 0 (up to rounding): one pass serves every position.
    """
    Q, K, V = _as_float("Q", Q, 2), _as_float("K", K, 2), _as_float("V", V, 2)
    mask = _as_float("mask", mask, 2)
    n = Q.shape[0]
    if (Q.ndim, K.ndim, V.ndim) != (2, 2, 2) or K.shape != Q.shape or V.shape[0] != n or mask.shape != (n, n):
        raise ValueError(f"Q and K must be (n, d_k), V (n, d_v) and mask (n, n), got Q {Q.shape}, K {K.shape}, "
                         f"V {V.shape} and mask {mask.shape}")
    whole, _ = attention(Q, K, V, mask)
    gaps = np.zeros(n, dtype=whole.dtype)
    for i in range(n):
        prefix, _ = attention(Q[:i + 1], K[:i + 1], V[:i + 1], mask[:i + 1, :i + 1])
        gaps[i] = np.abs(whole[i] - prefix[-1]).max()
    return gaps


def ablate_head(X, W_q, W_k, W_v, W_o, n_heads: int, head: int, mask=None) -> np.ndarray:
    """Multi-head attention with one head removed: its output set to zero before the output projection.

    X: (n, d); W_q, W_k, W_v: (d, d_h) with d_h divisible by n_heads; W_o: (d_h, d_out);
    head: 0 ≤ head < n_heads; mask: None or additive, (n, n). Returns (n, d_out) in the
    dtype of attention's output. What the model loses without the head is what the head did.
    """
    n_heads = _positive_int("n_heads", n_heads)
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"head must be an integer from 0 to n_heads - 1 = {n_heads - 1}, got {head!r}")
    X, W_o = _as_float("X", X, 2), _as_float("W_o", W_o, 2)
    heads, _ = attention(split_heads(X @ _as_float("W_q", W_q, 2), n_heads),
                         split_heads(X @ _as_float("W_k", W_k, 2), n_heads),
                         split_heads(X @ _as_float("W_v", W_v, 2), n_heads), mask)
    heads[..., head, :, :] = 0
    joined = merge_heads(heads)
    return joined @ W_o.astype(joined.dtype, copy=False)
