# %% [markdown]
# # Attention, part 1: the worked example and the three projections
#
# This assignment follows the chapter *Attention* one section at a time. You
# will write attention from nothing in NumPy, check each piece on the
# chapter's own example ("pick up the cube": four tokens, four numbers each),
# count what it costs, answer the chapter's questions, and end by running a
# small trained model with your own attention to find out what its heads do.
#
# | notebook | chapter section | you write |
# |---|---|---|
# | 01 the worked example (this one) | 1, 2 | `token_movement`, `project_qkv` |
# | 02 scores and scaling | 2, 3 | `raw_scores`, `self_preference`, `scaled_scores`, `score_spread`, `largest_weight` |
# | 03 softmax and the mix | 4 | `softmax`, `lead_share`, `attention`, `layer_counts` |
# | 04 heads | 5 | `split_heads`, `merge_heads`, `multi_head_attention`, `head_patterns` |
# | 05 masks and cross-attention | 6 | `causal_mask`, `first_changed_output`, `padding_mask`, `padding_leak`, `block_mask` |
# | 06 blockwise attention | 7 | `blockwise_attention` |
# | 07 cost | 7 | the cost formulas, against the MLP too |
# | 08 check yourself | all | the chapter's questions, answered by computing where they can be |
# | 09 the Model Explorer | 5 | `self_score`, `previous_score`, `start_score`, `induction_score`, `classify_head`, `copy_score` |
#
# ## How your work is checked
#
# Under every exercise there is a **check cell**. Run it after you write the
# function: it tries your code on the chapter's worked example and either
# prints a ✓ per case or stops with a message that says what was expected,
# what came, and where. When your answer goes wrong exactly as a common
# mistake does, on every case the check tries, the message names the mistake;
# otherwise it names none (and never from a case where two mistakes agree).
# When the assignment is graded, **hidden checks** run the same function on
# inputs you have not seen (other shapes, float32, batches, extreme scores).
# A check cell's points count only when that exercise's hidden checks pass too:
# an answer that gives back the worked example's values without computing them
# passes the check cell here and earns nothing.
#
# Every check, visible or hidden, compares your answer with one policy, in this order:
#
# 1. **type**: an array must be exactly `numpy.ndarray` (not a subclass), a number a real number;
# 2. **shape**: exactly the expected shape; your array is never broadcast to fit;
# 3. **dtype**: exactly the expected dtype: float32 in gives float32 out (careful with `np.sqrt(4)`,
#    a float64 scalar that turns float32 arrays into float64; `math.sqrt(4)` does not);
# 4. **finiteness**: no NaN or ±inf where the answer is finite;
# 5. **closeness**: `|yours − expected| ≤ tol · max(1, |expected|)` element by element, with
#    `tol = √eps` of the dtype: 1.5e-8 for float64, 3.5e-4 for float32. Counts must be exact.
#
# **One number** (a measure, a ratio, the weight of one lead) may be a Python number, a NumPy
# scalar or an array of shape `()`: every check treats the three alike. Where a function of arrays
# is given one number and answers with one, its dtype counts as an array's would (a Python float
# is float64). A **count** (a number of steps, bytes, weights, positions) must be an exact
# integer: a Python `int`, a NumPy integer or an integer array of shape `()`. A float is refused
# even when nothing follows its point, so compute counts with integer arithmetic (`//`, not `/`).
#
# **Integers** given where numbers are computed (tokens, scores, weights) are computed in float64:
# an integer array in gives a float64 answer, as float32 in gives float32 out.
#
# **Shapes** are written as in `X: (..., n, d)`: `...` is any number of leading batch dimensions,
# none included, and a name is one size wherever it appears (`W_q: (d, d_k)` has as many rows as
# `X` has columns; `n_heads` is the argument of that name). Arrays whose shapes do not fit the ones
# an exercise gives, in its text or its docstring, raise a `ValueError` (in notebook 09, which reads
# the trained model's own arrays, only `prefix_gaps` checks them).
#
# **Large scores**: wherever scores become weights, scores as large as ±1e4 must give finite weights
# and outputs, with no overflow and no NaN.
#
# A **count or size you are given** (a number of tokens, heads, samples or trials, a width, a
# block size) is checked the same way in every exercise: it must be a whole number of at least 1,
# given as an integer. 1 is allowed; 0, a negative number, `True` and a float such as `2.0`
# raise a `ValueError`. Hidden checks try every such argument at these edges.
#
# Until you start an exercise its stub raises `NotStarted`, and its check says
# so; the other exercises are not affected. Warnings your code prints do not
# cost points. Each exercise is graded alone: when your `attention` calls your
# `softmax` (or your `classify_head` your `previous_score`), grading hands it
# the reference's instead, so one mistake costs points once. In your own notebook your functions run as written, and a
# failing check tells you when the function it calls fails its own check.

# %% setup id=setup_01
import math

import numpy as np

from judge import NotStarted, check
from workbook import TOKENS, demonstration, pick_up_the_cube

X, W_q, W_k, W_v = pick_up_the_cube()

# %% [markdown]
# ## 1. What one token needs from the others (chapter section 1)
#
# An embedding table gives a token the same vector wherever it appears, so the
# vector of "cube" cannot know whether the sentence is about a wooden cube or
# an ice cube. Attention replaces each token's vector with a weighted average
# of vectors made from *all* the tokens, with weights computed from the tokens
# themselves. Here are the four tokens of "pick up the cube", one row each:

# %% locked
for token, row in zip(TOKENS, X):
    print(f"{token:>5}", np.array2string(row, precision=1, sign="+"))

# %% [markdown]
# By the end of notebook 03 you will have computed what attention turns these
# rows into. The chapter measures how far each token moved as the **mean
# absolute difference** between its row before and after attention: take the
# difference number by number, take sizes, average them.
#
# ### Exercise 1.1: `token_movement`
#
# Write `token_movement(X, O)`: for every token, the mean absolute difference
# between its row in `X` and its row in `O`. Both have shape `(..., n, d)`
# (any leading batch dimensions); the answer has shape `(..., n)`. Raise a
# `ValueError` naming both shapes when they differ. About 3 lines.

# %% solution id=token_movement
def token_movement(X, O):
    """Per token, the mean absolute difference before and after attention.

    X: (..., n, d) tokens before; O: (..., n, d) tokens after.
    Returns (..., n), in the dtype of the inputs.
    Raises ValueError when the shapes differ.
    """
    ### BEGIN SOLUTION
    # Integers are computed in float64 (the general rules above); float32 stays float32.
    X, O = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in map(np.asarray, (X, O)))
    if X.shape != O.shape:
        raise ValueError(f"X and O must have the same shape, got X {X.shape} and O {O.shape}")
    return np.abs(X - O).mean(axis=-1)
    ### END SOLUTION


# %% locked
# The chapter's picture of section 1, with the movement column from your token_movement.
import figures

figures.tokens_before_after(token_movement)

# %% [markdown]
# ## 2. Query, key and value (chapter section 2)
#
# Three learned matrices give every token three new vectors with three jobs:
# the **query** asks (what is this token looking for?), the **key** offers
# (what does it have for whoever is looking?) and the **value** is what is
# actually passed on once the asking and offering have settled how much.
# The same three matrices serve every token: with the tokens as the rows of
# `X`, one matrix multiply makes all the queries at once, `Q = X W_q`.
#
# ### Exercise 1.2: `project_qkv`
#
# Write `project_qkv(X, W_q, W_k, W_v)` returning the tuple `(Q, K, V)`.
# `X` is `(..., n, d)`; `W_q` and `W_k` are `(d, d_k)`; `W_v` is `(d, d_v)`,
# and `d_v` may differ from `d_k`. Raise a `ValueError` that names the matrix
# and both shapes when a matrix does not fit `X`: when it is not 2-D (one
# column is still `(d, 1)`) or its first dimension is not `d`. Raise one too
# when `W_q` and `W_k` differ in width. About 6 lines.

# %% solution id=project_qkv
def project_qkv(X, W_q, W_k, W_v):
    """Queries, keys and values of every token.

    X: (..., n, d); W_q, W_k: (d, d_k); W_v: (d, d_v).
    Returns (Q, K, V) with shapes (..., n, d_k), (..., n, d_k), (..., n, d_v).
    Raises ValueError when a matrix is not 2-D, its first dimension is not d,
    or W_q and W_k differ in width.
    """
    ### BEGIN SOLUTION
    # Integers are computed in float64 (the general rules above); float32 stays float32.
    X, W_q, W_k, W_v = (a if a.dtype.kind == "f" else a.astype(np.float64)
                        for a in map(np.asarray, (X, W_q, W_k, W_v)))
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if np.ndim(W) != 2 or np.shape(W)[0] != X.shape[-1]:
            raise ValueError(f"{name} must have shape ({X.shape[-1]}, _) to multiply X {X.shape}, "
                             f"got {name} {np.shape(W)}")
    if np.shape(W_q) != np.shape(W_k):
        raise ValueError(f"W_q {np.shape(W_q)} and W_k {np.shape(W_k)} must have the same width d_k")
    return X @ W_q, X @ W_k, X @ W_v
    ### END SOLUTION


# %% [markdown]
# With your `project_qkv`, here is the query of "cube" worked out the way the
# chapter does it by hand: its first number is the row of "cube" run down the
# first column of `W_q`.

# %% locked
with demonstration("project_qkv"):
    Q, K, V = project_qkv(X, W_q, W_k, W_v)
    products = X[3] * W_q[:, 0]
    print("query of cube:", np.array2string(Q[3], precision=2, sign="+"))
    print("first number :", " + ".join(f"({p:+.2f})" for p in products), f"= {products.sum():+.2f}")

# %% [markdown]
# From here on the original token vectors are not needed: everything that
# follows uses `Q`, `K` and `V`. Next, notebook 02 compares every query with
# every key.
