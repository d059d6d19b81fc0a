# %% [markdown]
# # Attention, part 4: several heads
#
# This notebook follows section 5 of the chapter. One run of attention gives
# each token a single row of weights, and because that row adds up to one, two
# unrelated needs (say, the object a word refers to and the verb that governs it)
# compete for the same budget. Multi-head attention runs several smaller
# attentions side by side, each on its own slice of the queries, keys and
# values, then joins them.
#
# The heads run on **your** `attention` from notebook 03, loaded in the set-up
# cell below: finish notebook 03 first.

# %% setup id=setup_04
import math

import numpy as np

from judge import NotStarted, check
from workbook import TOKENS, demonstration, my, pick_up_the_cube

# `my` reads the SAVED notebook, not its open tab: after a change there, save it and re-run this cell.
# Your own attention and softmax from notebook 03, and scaled_scores from 02 (their answer cells only).
attention, softmax = my("03_softmax_and_mix", "attention", "softmax")
scaled_scores = my("02_scores_and_scaling", "scaled_scores")

X, W_q, W_k, W_v = pick_up_the_cube()
# The chapter's listing: one matrix multiply each.
Q, K, V = X @ W_q, X @ W_k, X @ W_v

# %% [markdown]
# ## 5. Several small heads instead of one big one (chapter section 5)
#
# With `n_heads` heads of width `d_k = d / n_heads`, head `m` owns columns
# `m·d_k` to `(m+1)·d_k − 1` of the queries, the keys and the values. For the
# worked example with two heads, head one sees the first two numbers of every
# query, key and value and head two the last two. Each head then does all of
# sections 3 and 4 on its own slice, dividing by the square root of *its* size.
#
# To run all heads with one call, put the head axis in front of the token axis:
# `(..., n, d)` becomes `(..., n_heads, n, d_k)`. To `attention`, the heads then
# look like one more batch dimension.
#
# ### Exercise 4.1: `split_heads`
#
# Write `split_heads(M, n_heads)`: `(..., n, d)` → `(..., n_heads, n, d_k)`
# with `d_k = d // n_heads`, so that `split_heads(M, h)[..., m, i, :]` is
# `M[..., i, m*d_k:(m+1)*d_k]`. Careful: reshaping straight to
# `(n_heads, n, d_k)` mixes numbers of different tokens; cut the last axis
# first, then move the head axis. Float32 stays float32; integers become float64.
# Raise a `ValueError` naming the shape when `M` has fewer than 2 dimensions or
# `d` is not divisible by `n_heads`. About 5 lines.

# %% solution id=split_heads
def split_heads(M, n_heads):
    """Cut the last dimension into heads: head m owns columns m·d_k … (m+1)·d_k − 1.

    M: (..., n, d) with d divisible by n_heads.
    Returns (..., n_heads, n, d // n_heads), in the dtype of M (integers give float64).
    Raises ValueError when M has fewer than 2 dimensions or d is not divisible by n_heads.
    """
    ### BEGIN SOLUTION
    M = np.asarray(M)
    if M.dtype.kind != "f":
        M = M.astype(np.float64)
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a whole number of at least 1, got {n_heads!r}")  # notebook 01's rule
    if M.ndim < 2 or M.shape[-1] % n_heads:
        raise ValueError(f"cannot cut M of shape {M.shape} into {n_heads} heads of equal width")
    *batch, n, d = M.shape
    return np.moveaxis(M.reshape(*batch, n, n_heads, d // n_heads), -2, -3)
    ### END SOLUTION


# %% [markdown]
# ### Exercise 4.2: `merge_heads`
#
# The heads' outputs are joined by writing them side by side, which gives the
# original width back. Write `merge_heads(H)`: `(..., n_heads, n, d_k)` →
# `(..., n, n_heads · d_k)`, the inverse of `split_heads`, so that
# `merge_heads(split_heads(M, h))` equals `M`. Raise a `ValueError` naming the
# shape when `H` has fewer than 3 dimensions. About 4 lines.

# %% solution id=merge_heads
def merge_heads(H):
    """Write the heads side by side again: the inverse of `split_heads`.

    H: (..., n_heads, n, d_k).
    Returns (..., n, n_heads * d_k), in the dtype of H (integers give float64).
    Raises ValueError when H has fewer than 3 dimensions.
    """
    ### BEGIN SOLUTION
    H = np.asarray(H)
    if H.dtype.kind != "f":
        H = H.astype(np.float64)
    if H.ndim < 3:
        raise ValueError(f"H must be (..., n_heads, n, d_k), got shape {H.shape}")
    *batch, n_heads, n, d_k = H.shape
    return np.moveaxis(H, -3, -2).reshape(*batch, n, n_heads * d_k)
    ### END SOLUTION


# %% [markdown]
# Your two heads on the worked example. Averaged over the four tokens, the
# largest weight is 0.691 in head one and 0.360 in head two in the chapter: the
# first head is far more peaked. With untrained random matrices that contrast is
# an accident; it is training that gives heads specialities, for example always
# looking one token back.

# %% locked
with demonstration("split_heads", "attention"):
    _, A_heads = attention(split_heads(Q, 2), split_heads(K, 2), split_heads(V, 2))
    for m, (A, chapter) in enumerate(zip(A_heads, (0.691, 0.360)), start=1):
        print(f"head {m}: average largest weight {A.max(axis=-1).mean():.3f}   (chapter {chapter:.3f})")
        for token, row in zip(TOKENS, A):
            print(f"{token:>9} " + "".join(f"{w:7.3f}" for w in row))

# %% locked
# The two heads' weight grids, from your split_heads and your attention.
import figures

figures.two_heads(split_heads, attention)

# %% [markdown]
# ## Joining the heads: the output projection
#
# Written side by side, the first `d_k` numbers of a token's result could only
# come from head one, the next `d_k` only from head two, and so on. A fourth
# learned matrix, the **output projection** `W_o`, multiplies the joined grid:
# each output number is then a learned blend of all the heads.
#
# ### Exercise 4.3: `multi_head_attention`
#
# Write `multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None)`:
#
# 1. queries from `X`, keys and values from `context` (when `context` is `None`,
#    from `X` too: self-attention; otherwise it is cross-attention);
# 2. split all three into `n_heads` heads;
# 3. run your `attention` once on all heads together;
# 4. merge the heads and multiply by `W_o`.
#
# `X` is `(..., n, d)`, `context` `(..., m, d)`; `W_q`, `W_k` are `(d, d_h)`
# and `W_v` is `(d, d_v)`, with `d_h` and `d_v` divisible by `n_heads`; `W_o`
# is `(d_v, d_out)`; the answer is `(..., n, d_out)`. The same `mask`, broadcastable to `(..., n, m)`,
# serves every head: when it has 2 or more dimensions give it a head axis of
# size 1 in front of its last two (`np.expand_dims(mask, -3)`). No loop over
# heads or tokens. About 9 lines.

# %% solution id=multi_head_attention
def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=None, context=None):
    """Several heads side by side, joined by the output projection.

    X: (..., n, d) the tokens that ask; context: (..., m, d) the tokens that
    answer (None: X itself, self-attention; otherwise cross-attention).
    W_q, W_k: (d, d_h); W_v: (d, d_v), with d_h and d_v divisible by n_heads; W_o: (d_v, d_out).
    mask: additive, broadcastable to (..., n, m); the same mask serves every head.
    Returns (..., n, d_out).
    """
    ### BEGIN SOLUTION
    # Integers are computed in float64 (notebook 01's general rules); float32 stays float32.
    X, W_q, W_k, W_v, W_o = (a if a.dtype.kind == "f" else a.astype(np.float64)
                             for a in map(np.asarray, (X, W_q, W_k, W_v, W_o)))
    context = X if context is None else np.asarray(context)
    context = context if context.dtype.kind == "f" else context.astype(np.float64)
    Q = X @ W_q
    K, V = context @ W_k, context @ W_v
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)  # one head axis, shared by every head
    heads, _ = attention(split_heads(Q, n_heads), split_heads(K, n_heads), split_heads(V, n_heads), mask)
    joined = merge_heads(heads)
    return joined @ W_o.astype(joined.dtype, copy=False)
    ### END SOLUTION


# %% [markdown]
# ## How many patterns a model has
#
# Each head of each layer makes its own grid of weights: its own pattern of
# who reads whom. Researchers who look inside trained models find heads with
# recognisable jobs among these patterns (notebook 09 looks for them in a
# small model). The chapter counts them for a model of 12 layers with 12
# heads in each. Rather than multiply two numbers, make the patterns.
#
# ### Exercise 4.4: `head_patterns`
#
# Write `head_patterns(X, W_q, W_k, n_heads)`: `X` is `(..., n, d)` and `W_q`,
# `W_k` are `(d, d_h)`. Cut the queries `X @ W_q` and the keys `X @ W_k` into
# heads with your `split_heads`, and return each head's weights: your
# `softmax` of its scores, scaled by the square root of that head's own size,
# as one array of shape `(..., n_heads, n, n)`. Row `i` of head `m` is where
# token `i` looks in head `m`. Float32 in gives float32 out. Raise a
# `ValueError` when `n_heads` does not divide the width `d_h`, or when the
# matrices do not fit `X` or each other. About 6 lines.

# %% solution id=head_patterns
def head_patterns(X, W_q, W_k, n_heads):
    """The weight grid of each head of one layer.

    X: (..., n, d); W_q, W_k: (d, d_h) with d_h divisible by n_heads.
    Returns (..., n_heads, n, n): head m's softmax(Q_m K_mᵀ / √d_k).
    Raises ValueError when the shapes do not fit or n_heads does not divide d_h.
    """
    ### BEGIN SOLUTION
    # Integers are computed in float64 (notebook 01's general rules); float32 stays float32.
    X, W_q, W_k = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, W_q, W_k)))
    if W_q.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[-1]:
        raise ValueError(f"W_q and W_k must both be (d, d_h), got X {X.shape}, W_q {W_q.shape}, W_k {W_k.shape}")
    Q, K = split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads)
    return softmax(scaled_scores(Q, K))
    ### END SOLUTION


# %% [markdown]
# Your function on a model of the chapter's shape: 12 layers, each with its
# own random `W_q` and `W_k` of width 48, cut into 12 heads of size 4, all
# reading the same 6 tokens (a real model would feed each layer the last
# one's output). Count the patterns, and see that no two are alike.

# %% locked
with demonstration("head_patterns", "split_heads", "scaled_scores", "softmax"):
    rng = np.random.default_rng(12)
    tokens = rng.standard_normal((6, 48))
    patterns = np.concatenate([head_patterns(tokens, rng.standard_normal((48, 48)), rng.standard_normal((48, 48)), 12)
                               for _ in range(12)])
    flat = patterns.reshape(len(patterns), -1)
    apart = np.abs(flat[:, None, :] - flat[None, :, :]).max(axis=-1)
    np.fill_diagonal(apart, np.inf)
    print(f"{len(patterns)} patterns of 6 tokens from 12 layers of 12 heads, each of shape {patterns.shape[1:]}")
    print(f"the two most alike still differ by {apart.min():.2f} in some weight")

# %% [markdown]
# ## What heads cost
#
# Cutting into heads does not add matrices, it cuts the same ones: head `m`'s
# query matrix is a `d × d_k` slice of `W_q`, and `n_heads` slices of width
# `d / n_heads` are again `d × d`. So `W_q`, `W_k`, `W_v` and `W_o` hold `4·d²`
# numbers whatever the number of heads: 2,359,296 at the width 768 of a small
# language model. The table counts the slices head by head.

# %% locked
d = 768
print("heads   head size   numbers in the four matrices")
for n_heads in (1, 2, 4, 12, 32, 64):
    d_k = d // n_heads
    per_head = 3 * d * d_k + d_k * d  # its slices of W_q, W_k, W_v, and its rows of W_o
    print(f"{n_heads:>5}   {d_k:>9}   {n_heads * per_head:>28,}")
print(f"4·d² = {4 * d * d:,}")

# %% [markdown]
# The same four matrices of the worked example serve any number of heads that
# divides 4; only the pattern changes. With `W_o` the identity, the output is
# just the heads written side by side.

# %% locked
with demonstration("multi_head_attention"):
    W_o = np.eye(4)
    outputs = {h: multi_head_attention(X, W_q, W_k, W_v, W_o, h) for h in (1, 2, 4)}
    n_numbers = sum(W.size for W in (W_q, W_k, W_v, W_o))
    for h, out in outputs.items():
        print(f"{h} head{'s' if h > 1 else ' '}, {n_numbers} numbers, new vector of cube:",
              np.array2string(out[3], precision=2, sign="+"))

# %% [markdown]
# ## What a small head can tell apart (chapter section 5)
#
# The price is elsewhere. The chapter: "a head of size 8 compares vectors of
# only eight numbers". A head's score grid is `Q_m K_mᵀ`, an `(n, d_k)` grid
# times a `(d_k, n)` one, so however many tokens there are its rank, the
# number of independent directions its scores vary along, is at most `d_k`.
# Measure it.
#
# ### Exercise 4.5: `head_score_ranks`
#
# Write `head_score_ranks(X, W_q, W_k, n_heads)`: `X` is `(n, d)`, `W_q` and
# `W_k` are `(d, d_h)`. Cut the queries `X @ W_q` and the keys `X @ W_k` into
# `n_heads` heads with your `split_heads`, make every head's `(n, n)` score
# grid, and return the rank of each, `np.linalg.matrix_rank` with its default
# tolerance (it takes a stack of grids at once), as an integer array of shape
# `(n_heads,)`. Raise a `ValueError` when `n_heads` does not divide the width
# `d_h`, when `X` is not 2-D, or when `W_q` and `W_k` differ in shape or do not
# fit `X`. About 6 lines.

# %% solution id=head_score_ranks
def head_score_ranks(X, W_q, W_k, n_heads):
    """The rank of each head's score grid.

    X: (n, d); W_q, W_k: (d, d_h) with d_h divisible by n_heads.
    Returns (n_heads,) integers: the rank of head m's Q_m K_mᵀ.
    Raises ValueError when the shapes do not fit or n_heads does not divide d_h.
    """
    ### BEGIN SOLUTION
    X, W_q, W_k = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, W_q, W_k)))
    if X.ndim != 2 or W_q.ndim != 2 or W_q.shape != W_k.shape or W_q.shape[0] != X.shape[1]:
        raise ValueError(f"X must be (n, d) and W_q, W_k (d, d_h), got {X.shape}, {W_q.shape}, {W_k.shape}")
    Q, K = split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads)
    return np.linalg.matrix_rank(Q @ np.swapaxes(K, -1, -2))
    ### END SOLUTION


# %% [markdown]
# Your function on 32 random tokens of width 64, the same matrices cut into
# more and more heads. Every head uses all of its `d_k` directions, and not
# one more: past 2 heads the grids are no longer limited by the 32 tokens but
# by the head size. Sixty-four heads of size 1 each see the tokens along a
# single direction, so a head can rank keys by one number only.

# %% locked
with demonstration("head_score_ranks", "split_heads"):
    rng = np.random.default_rng(5)
    tokens, W_wide_q, W_wide_k = rng.standard_normal((32, 64)), rng.standard_normal((64, 64)), rng.standard_normal((64, 64))
    print("heads   head size   rank of each head's 32 × 32 grid")
    for n_heads in (1, 2, 4, 8, 16, 64):
        ranks = head_score_ranks(tokens, W_wide_q, W_wide_k, n_heads)
        print(f"{n_heads:>5}   {64 // n_heads:>9}   {sorted(set(ranks.tolist()))}")

# %% [markdown]
# So the price of many heads is not parameters: each head makes a score grid of
# its own, and score grids are what grow with the square of the length. Section
# 7 of the chapter, and notebooks 06 and 07, are about that cost. The usual
# choice is a head size of 64: 12 heads at width 768.
