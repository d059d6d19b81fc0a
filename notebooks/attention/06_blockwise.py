# %% [markdown]
# # Attention, part 6: attention one block of keys at a time
#
# This notebook follows the end of chapter section 7. The score grid has one
# cell for every (query, key) pair, so storing it grows with the square of the
# length. Real implementations do not store the grid: they walk through the
# keys in blocks, carry a running total for the softmax, and throw each block
# of scores away once it has been used. You will write that walk,
# `blockwise_attention`, and check that it gives exactly what your
# `attention` from notebook 03 gives while holding far less memory.

# %% setup id=setup_06
import math
import time
import tracemalloc

import numpy as np

from judge import NotStarted, check
from workbook import demonstration, my

# `my` reads the SAVED notebook, not its open tab: after a change there, save it and re-run this cell.
attention = my("03_softmax_and_mix", "attention")

# %% [markdown]
# ## 1. A softmax that never sees the whole row (chapter section 7)
#
# Take one query and its scaled scores $s_1, \dots, s_{n_k}$. Attention wants
#
# $$o = \frac{\sum_j e^{s_j - m}\, v_j}{\sum_j e^{s_j - m}},\qquad m = \max_j s_j ,$$
#
# where subtracting the largest score $m$ changes nothing in the ratio but keeps
# every exponential at most 1. The trouble is that $m$ is only known once every
# score has been seen. The way out is to keep three running quantities per
# query and to correct them whenever a larger score turns up. After the blocks
# seen so far, let
#
# * $m$ be the largest score so far,
# * $\ell = \sum_j e^{s_j - m}$ the sum of exponentials so far, and
# * $a = \sum_j e^{s_j - m}\, v_j$ the weighted sum of value rows so far,
#
# each measured against the current $m$. Starting from $m = -\infty$,
# $\ell = 0$, $a = 0$, a new block $B$ of keys updates them as
#
# $$m' = \max\Bigl(m,\ \max_{j \in B} s_j\Bigr),\qquad c = e^{\,m - m'},$$
# $$\ell' = c\,\ell + \sum_{j \in B} e^{s_j - m'},\qquad
#   a' = c\,a + \sum_{j \in B} e^{s_j - m'}\, v_j .$$
#
# The factor $c \le 1$ re-expresses the old totals against the new maximum:
# $e^{s_j - m} \cdot e^{m - m'} = e^{s_j - m'}$. When the block holds no new
# maximum, $c = 1$ and the totals simply grow. After the last block the output
# is $o = a / \ell$, the same number the full softmax gives, up to rounding.
#
# Two details. While a row has seen only forbidden scores, $m = -\infty$ and
# $m - m'$ would be $-\infty - (-\infty)$ = NaN; subtract 0 instead of
# $m'$ whenever $m' = -\infty$ (the exponentials are then all 0 anyway). And a
# row with $\ell = 0$ at the end has no key to read: return zeros for it, as
# `softmax` does for an all-forbidden row.
#
# ### Exercise 6.1: `blockwise_attention`
#
# Write `blockwise_attention(Q, K, V, block_size=128, causal=False)` returning
# the output of attention, `(..., n_q, d_v)`, for `Q` `(..., n_q, d_k)`, `K`
# `(..., n_k, d_k)` and `V` `(..., n_k, d_v)` (leading batch dimensions
# broadcast as in `attention`). Scale the scores by $1/\sqrt{d_k}$ as usual.
# With `causal=True`, key `j` is forbidden to query `i` whenever `j > i`.
#
# * The one loop runs over blocks of `block_size` keys (the
#   last block may be shorter). Each step handles all queries of the block
#   at once: its scores are `n_q × block_size` numbers per sequence.
# * Never build an array with `n_q × n_k` cells: not the scores, not the
#   weights, not the causal mask. The memory must grow with
#   `n_q · block_size`, not with `n_q · n_k`.
# * Keep the dtype: float32 in gives float32 out (integers become float64).
# * Raise a `ValueError` when `Q` and `K` differ in their last dimension, when
#   `K` and `V` differ in their number of rows, or when `block_size` is not a
#   positive integer.
#
# About 25 lines, half of them set-up and argument checks.

# %% solution id=blockwise_attention
def blockwise_attention(Q, K, V, block_size=128, causal=False):
    """Attention over blocks of keys, with a running maximum, sum and mix.

    Q: (..., n_q, d_k); K: (..., n_k, d_k); V: (..., n_k, d_v).
    block_size: keys per block, a positive integer.
    causal: when True, key j is forbidden to query i if j > i.
    Returns (..., n_q, d_v), equal to attention's output, without ever
    holding an n_q x n_k array.
    Raises ValueError on mismatched shapes or a bad block_size.
    """
    ### BEGIN SOLUTION
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (Q, K, V)))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share the last dimension d_k, got Q {Q.shape} and K {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have one row per key, got K {K.shape} and V {V.shape}")
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    dtype = np.result_type(Q, K, V)
    Q, K, V = (a.astype(dtype, copy=False) for a in (Q, K, V))
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    top = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)    # m
    total = np.zeros((*batch, n_q, 1), dtype=dtype)          # l
    mix = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)  # a
    scale = 1 / math.sqrt(Q.shape[-1])
    query_at = np.arange(n_q)[:, None]
    for start in range(0, n_k, block_size):
        keys = slice(start, start + block_size)
        s = (Q @ np.swapaxes(K[..., keys, :], -1, -2)) * scale
        if causal:
            s = np.where(np.arange(start, start + s.shape[-1]) > query_at, -np.inf, s)
        new_top = np.maximum(top, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_top), 0, new_top)
        shrink = np.exp(top - shift)
        e = np.exp(s - shift)
        total = total * shrink + e.sum(axis=-1, keepdims=True)
        mix = mix * shrink + e @ V[..., keys, :]
        top = new_top
    return np.divide(mix, total, out=np.zeros_like(mix), where=total > 0)
    ### END SOLUTION


# %% [markdown]
# ## 2. Same answer, smaller footprint
#
# First, your two functions side by side on random inputs: lengths that are
# and are not multiples of the block size, a batch, and float32. The largest
# difference should be rounding, far below the tolerance of the checks.

# %% locked
rng = np.random.default_rng(7)
cases = [  # (leading shape, n_q, n_k, d_k, d_v, block_size, dtype)
    ((), 4, 4, 4, 4, 1, np.float64),
    ((), 5, 300, 16, 8, 128, np.float64),
    ((3,), 64, 200, 32, 32, 50, np.float64),
    ((2, 2), 100, 100, 8, 16, 128, np.float32),
]
with demonstration("attention", "blockwise_attention"):
    for lead, n_q, n_k, d_k, d_v, block, dtype in cases:
        Q = rng.standard_normal((*lead, n_q, d_k)).astype(dtype)
        K = rng.standard_normal((*lead, n_k, d_k)).astype(dtype)
        V = rng.standard_normal((*lead, n_k, d_v)).astype(dtype)
        plain, _ = attention(Q, K, V)
        blocks = blockwise_attention(Q, K, V, block_size=block)
        gap = np.abs(blocks.astype(np.float64) - plain).max()
        print(f"Q {Q.shape!s:<16} K {K.shape!s:<16} blocks of {block:>3} {np.dtype(dtype).name}: "
              f"largest difference {gap:.1e}, output dtype {blocks.dtype}")

# %% [markdown]
# The causal version can be checked without any mask at all: query `i` must
# get exactly what plain attention gives when it is shown only keys `0 … i`.
# (The loop over queries below is fine for a demonstration; your function
# must not need one.)

# %% locked
n, d = 9, 4
Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))
with demonstration("attention", "blockwise_attention"):
    blocks = blockwise_attention(Q, K, V, block_size=4, causal=True)
    prefixes = np.concatenate([attention(Q[i:i + 1], K[:i + 1], V[:i + 1])[0] for i in range(n)])
    print(f"causal, {n} tokens in blocks of 4: largest difference from prefix attention "
          f"{np.abs(blocks - prefixes).max():.1e}")

# %% [markdown]
# Now the memory. `tracemalloc` records the largest amount of memory NumPy
# held at any moment during one call. At 2,048 tokens one float64 score grid
# alone is 2,048² × 8 bytes = 32 MiB; blocks of 128 keys need 16 times less
# per array. Both versions still do every multiply-and-add of the grid, so
# the time does not drop the same way: that is the chapter's point about long
# inputs staying expensive.

# %% locked
def peak_mib(func, *args, **kwargs):
    """Seconds taken and the most memory (MiB) held at once during one call."""
    tracemalloc.start()
    try:
        began = time.perf_counter()
        func(*args, **kwargs)
        seconds = time.perf_counter() - began
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return seconds, peak / 2**20


n, d = 2048, 64
Q, K, V = (rng.standard_normal((n, d)) for _ in range(3))
with demonstration("attention", "blockwise_attention"):
    for name, func, kwargs in (("attention", attention, {}),
                               ("blockwise_attention", blockwise_attention, {"block_size": 128})):
        seconds, mib = peak_mib(func, Q, K, V, **kwargs)
        print(f"{name:>19}: peak {mib:6.1f} MiB, {seconds:.2f} s")

# %% [markdown]
# Libraries go one step further and also cut the queries into blocks, sized so
# that a block of scores fits in the fast memory beside the arithmetic units.
# Notebook 07 counts what the grid costs when nobody cuts it.
