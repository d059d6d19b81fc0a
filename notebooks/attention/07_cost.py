# %% [markdown]
# # Attention, part 7: what attention costs as the input grows
#
# This notebook follows chapter section 7. You write short functions that
# count the work and the memory of one attention layer, and of the MLP beside
# it, and the demonstrations use them to rebuild the chapter's numbers for a
# model of width 768. Two exercises read a layer's matrices: the crossover
# length from their shapes, and the weights each head owns, with your
# `split_heads`.
#
# Every function of sections 2 and 3 but `crossover_length`, which reads a
# layer's matrices, takes whole numbers and checks them: an argument that is
# not a positive integer (a Python or NumPy int; `True` and `768.0` do not
# count) raises a `ValueError` that names it. Counts are returned as integers.

# %% setup id=setup_07
import math

import numpy as np

from judge import NotStarted, check
from workbook import demonstration, my

# `my` reads the SAVED notebook, not its open tab: after a change there, save it and re-run this cell.
split_heads = my("04_heads", "split_heads")  # your own, from notebook 04 (for Exercise 7.8)

# %% [markdown]
# ## 1. One cell per pair (chapter section 7)
#
# The score grid has a cell for every ordered pair of (query, key), so its size
# is the square of the number of tokens: double the tokens, four times the
# cells.

# %% locked
for n in (4, 8, 16):
    print(f"{n:>2} tokens -> {n * n:>3} scores")

# %% [markdown]
# ## 2. Counting multiply-and-add steps (chapter section 7)
#
# The unit is one multiply-and-add step: one multiplication followed by one
# addition. Multiplying an `(n, a)` matrix by an `(a, b)` one takes `n · a · b`
# of them. Take a model of width `d` whose heads together also have width `d`.
#
# ### Exercise 7.1: `projection_flops`
#
# The parts that handle each token on its own are four matrix multiplies of an
# `(n, d)` grid by a `(d, d)` matrix: the queries, the keys, the values and the
# output projection. Write `projection_flops(n, d)` returning their total
# number of steps. About 4 lines, most of them the argument check.

# %% solution id=projection_flops
def projection_flops(n, d):
    """Multiply-and-add steps of the Q, K, V and output projections.

    n: tokens; d: width. Both positive integers.
    Returns an int: four (n, d) @ (d, d) products.
    Raises ValueError when an argument is not a positive integer.
    """
    ### BEGIN SOLUTION
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return 4 * int(n) * int(d) ** 2
    ### END SOLUTION


# %% [markdown]
# ### Exercise 7.2: `score_flops`
#
# The grid itself takes two products, summed over all heads: the scores
# `Q Kᵀ`, an `(n, d)` grid times a `(d, n)` one, and the mix `A V`, an `(n, n)`
# grid times an `(n, d)` one. (The softmax and the division by √d_k are a few
# steps per cell and are left out, as the chapter does.) Write
# `score_flops(n, d)`. About 4 lines.

# %% solution id=score_flops
def score_flops(n, d):
    """Multiply-and-add steps of the scores Q Kᵀ and the mix A V.

    n: tokens; d: width of all heads together. Both positive integers.
    Returns an int: two products of n · n · d steps each.
    Raises ValueError when an argument is not a positive integer.
    """
    ### BEGIN SOLUTION
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return 2 * int(n) ** 2 * int(d)
    ### END SOLUTION


# %% [markdown]
# ### Exercise 7.3: `attention_share`
#
# Write `attention_share(n, d)`: the fraction of the layer's steps (the two
# counts above added together) that the grid takes, a float between 0 and 1.
# You may call your own two functions. About 3 lines.

# %% solution id=attention_share
def attention_share(n, d):
    """Fraction of one attention layer's steps spent on the n x n grid.

    n: tokens; d: width. Both positive integers.
    Returns a float in (0, 1): score steps / (score steps + projection steps).
    Raises ValueError when an argument is not a positive integer.
    """
    ### BEGIN SOLUTION
    grid, per_token = score_flops(n, d), projection_flops(n, d)
    return grid / (grid + per_token)
    ### END SOLUTION


# %% [markdown]
# The chapter's table for width 768: the share of the work, and the grid's
# steps in billions, for one layer of a model that has dozens.

# %% locked
d = 768
with demonstration("score_flops", "attention_share"):
    rows = [(n, attention_share(n, d), score_flops(n, d)) for n in (128, 512, 2048, 8192, 32768)]
    print(f"{'tokens':>7} {'grid share':>10} {'grid steps (billion)':>21}")
    for n, share, steps in rows:
        print(f"{n:>7,} {share:>10.1%} {steps / 1e9:>21,.2f}")

# %% [markdown]
# ### Exercise 7.4: `crossover_length`
#
# The projections grow in step with `n`, the grid with `n²`, so past some
# length the grid costs more. Now drop the assumption that every width is
# `d`: a layer is its four matrices, `W_q` and `W_k` of shape `(d, d_h)`,
# `W_v` of shape `(d, d_v)` and `W_o` of shape `(d_v, d_out)`. Count both
# sides from those shapes with the rule above: the four projections of `n`
# tokens, then the scores of `n` queries against `n` keys and the mixing of
# the values by those weights. Write `crossover_length(W_q, W_k, W_v, W_o)`
# returning the fewest tokens at which the grid costs at least as much as the
# projections, as an integer. Only the shapes matter: no search and no loop.
# Raise a `ValueError` when a matrix is not a non-empty 2-D array or the four
# do not fit each other. About 6 lines.

# %% solution id=crossover_length
def crossover_length(W_q, W_k, W_v, W_o):
    """The fewest tokens at which the grid costs at least as much as the projections.

    W_q, W_k: (d, d_h); W_v: (d, d_v); W_o: (d_v, d_out). Only their shapes are read.
    Returns an int.
    Raises ValueError when a matrix is not a non-empty 2-D array or the four do not fit.
    """
    ### BEGIN SOLUTION
    shapes = [np.shape(W) for W in (W_q, W_k, W_v, W_o)]
    for shape in shapes:
        if len(shape) != 2 or 0 in shape:
            raise ValueError(f"every matrix must be 2-D and non-empty, got {shapes}")
    (d, d_h), (d_k, d_hk), (d_in, d_v), (d_vo, d_out) = shapes
    if (d_k, d_hk) != (d, d_h) or d_in != d or d_vo != d_v:
        raise ValueError(f"the matrices do not fit each other: {shapes}")
    projections = 2 * d * d_h + d * d_v + d_v * d_out  # steps per token
    grid = d_h + d_v  # steps per (query, key) pair: a score, then a share of a value
    return -(-projections // grid)  # the smallest whole n with n * grid >= projections
    ### END SOLUTION


# %% locked
# The chapter's layer of width 768, and one whose queries, keys and values are 64 columns wide.
with demonstration("crossover_length", "score_flops", "projection_flops"):
    for d_h in (768, 64):
        W_qk, W_vo = np.zeros((768, d_h)), np.zeros((d_h, 768))  # only the shapes matter here
        n = crossover_length(W_qk, W_qk, W_qk, W_vo)
        print(f"width 768, d_h = d_v = {d_h:>3}: crossover at {n:,} tokens")
    n = crossover_length(*[np.zeros((768, 768))] * 4)
    print(f"at {n:,} tokens: grid {score_flops(n, 768):,} steps, projections {projection_flops(n, 768):,} steps")

# %% [markdown]
# Narrower queries, keys and values do not move the crossover: while the
# output returns to width `d`, both sides shrink by the same factor, and the
# crossover stays at twice the width.

# %% locked
# Your two counts on log-log axes, with your crossover.
import figures

figures.cost(projection_flops, score_flops, crossover_length)

# %% [markdown]
# ### Against the rest of the block: the MLP
#
# The short chapter says it plainly: for short sequences the MLP dominates;
# at tens of thousands of tokens attention dominates. A transformer block
# (the chapter after this one) follows attention with an MLP that widens
# every token from `d` to `4·d` numbers and narrows it back: two matrices,
# `d × 4d` and `4d × d`, applied to each of the `n` tokens. That shape,
# d → 4d → d, is this notebook's assumption (the usual transformer block's),
# not the chapter's: the chapter says only that attention dominates at tens of
# thousands of tokens, and the crossover you compute depends on it.
#
# ### Exercise 7.5: `mlp_flops`
#
# Write `mlp_flops(n, d)`: the multiply-and-add steps of that MLP on `n`
# tokens of width `d`, as a Python int. Raise a `ValueError` when `n` or `d`
# is not a positive integer. About 3 lines.

# %% solution id=mlp_flops
def mlp_flops(n, d):
    """Multiply-and-add steps of a block's MLP (d → 4d → d) on n tokens of width d.

    n, d: positive ints. Returns an int.
    Raises ValueError when n or d is not a positive integer.
    """
    ### BEGIN SOLUTION
    for name, value in (("n", n), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(n * d * 4 * d + n * 4 * d * d)
    ### END SOLUTION


# %% [markdown]
# ### Exercise 7.6: `grid_over_mlp`
#
# Write `grid_over_mlp(n, d)`: the work of the score grid (your `score_flops`)
# divided by the work of the MLP (your `mlp_flops`), as a Python float. Below
# 1 the MLP costs more; above 1 the grid does. About 1 line.

# %% solution id=grid_over_mlp
def grid_over_mlp(n, d):
    """The score grid's multiply-and-add steps over the MLP's, for n tokens of width d.

    Returns a float: below 1 the MLP costs more, above 1 the grid does.
    """
    ### BEGIN SOLUTION
    return score_flops(n, d) / mlp_flops(n, d)
    ### END SOLUTION


# %% locked
with demonstration("score_flops", "mlp_flops", "grid_over_mlp"):
    print("tokens   grid / MLP   the larger")
    for n in (128, 512, 2048, 3072, 8192, 32768):
        ratio = grid_over_mlp(n, 768)
        print(f"{n:>6,}   {ratio:>10.3f}   {'the grid' if ratio > 1 else 'the MLP' if ratio < 1 else 'equal'}")

# %% [markdown]
# ## 3. Memory (chapter section 7)
#
# Work is one limit; memory often runs out first. Every head has its own
# `n × n` score grid, and a number in 16-bit floating point takes 2 bytes.
#
# ### Exercise 7.7: `score_grid_bytes`
#
# Write `score_grid_bytes(n, n_heads, bytes_per_number=2)`: the bytes needed to
# hold the score grids of every head of one layer at once. About 4 lines.

# %% solution id=score_grid_bytes
def score_grid_bytes(n, n_heads, bytes_per_number=2):
    """Bytes to hold every head's n x n score grid of one layer.

    n: tokens; n_heads: heads; bytes_per_number: bytes per score. All positive integers.
    Returns an int.
    Raises ValueError when an argument is not a positive integer.
    """
    ### BEGIN SOLUTION
    for name, value in (("n", n), ("n_heads", n_heads), ("bytes_per_number", bytes_per_number)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(n) ** 2 * int(n_heads) * int(bytes_per_number)
    ### END SOLUTION


# %% [markdown]
# The chapter's model has 12 heads and stores 2 bytes per number. One MiB is
# 2²⁰ = 1,048,576 bytes and one GiB is 1,024 MiB. These are the grids of one
# layer alone.

# %% locked
def readable(n_bytes):
    """Bytes as MiB below one GiB, as GiB above."""
    return f"{n_bytes / 2**20:g} MiB" if n_bytes < 2**30 else f"{n_bytes / 2**30:g} GiB"


with demonstration("score_grid_bytes"):
    for n in (512, 2048, 8192, 32768):
        size = score_grid_bytes(n, 12)
        print(f"{n:>6,} tokens: {size:>14,} bytes = {readable(size)}")

# %% locked
# The memory table as bars, from your score_grid_bytes.
import figures

figures.memory(score_grid_bytes)

# %% [markdown]
# That is why blockwise attention (notebook 06) exists: it never holds these
# grids, so its memory grows with `n`. It still does every step of
# `score_flops`, though, so the time keeps growing with `n²`.
#
# ## 4. Parameters: what heads cost (chapter section 5)
#
# Cutting the width into heads changes how the columns of `W_q`, `W_k`, `W_v`
# are grouped, not how many there are. Count them head by head, from the
# matrices themselves.
#
# ### Exercise 7.8: `attention_params`
#
# Write `attention_params(W_q, W_k, W_v, W_o, n_heads)`: `W_q` and `W_k` are
# `(d, d_h)`, `W_v` is `(d, d_v)` and `W_o` is `(d_v, d_out)`. Head `m` owns
# the columns of `W_q`, `W_k` and `W_v` that your `split_heads` gives it (cut
# a matrix with its rows standing for tokens), and the rows of `W_o` that its output
# meets. Return the number of weights each head owns, as an integer array of
# shape `(n_heads,)`. Raise a `ValueError` when `n_heads` does not divide a
# width, or when the matrices do not fit each other. About 6 lines.

# %% solution id=attention_params
def attention_params(W_q, W_k, W_v, W_o, n_heads):
    """The weights each head owns: its slices of W_q, W_k, W_v and its rows of W_o.

    W_q, W_k: (d, d_h); W_v: (d, d_v); W_o: (d_v, d_out).
    Returns (n_heads,) integers.
    Raises ValueError when the shapes do not fit or n_heads does not divide a width.
    """
    ### BEGIN SOLUTION
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    if W_q.shape != W_k.shape or W_v.shape[0] != W_q.shape[0] or W_o.shape[0] != W_v.shape[1]:
        raise ValueError(f"shapes do not fit: {W_q.shape}, {W_k.shape}, {W_v.shape}, {W_o.shape}")
    parts = [split_heads(W, n_heads) for W in (W_q, W_k, W_v, W_o.T)]
    return np.array([sum(part[m].size for part in parts) for m in range(n_heads)])
    ### END SOLUTION


# %% locked
with demonstration("attention_params", "split_heads"):
    W = np.zeros((768, 768))  # only the shapes matter here
    for n_heads in (1, 2, 12, 64):
        per_head = attention_params(W, W, W, W, n_heads)
        print(f"width 768, {n_heads:>2} heads of size {768 // n_heads:>3}: {per_head[0]:>9,} weights each, "
              f"{per_head.sum():,} in all")

# %% [markdown]
# More heads cost no weights, but each head needs a score grid of its own,
# which is the `n_heads` factor in `score_grid_bytes`. Notebook 08 asks the
# chapter's own questions.
