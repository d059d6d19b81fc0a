# %% [markdown]
# # Attention, part 8: check yourself
#
# The short version of the chapter closes with four "Check yourself"
# questions, and opens with a list of what you should already be able to do
# to skip it. The chapter wants explanations, so wherever an answer can be
# shown by computing, you show it: you write a small function, and it is run
# on cases you have not seen. Where you choose, the options are statements
# that are each someone's real mistake. Three kinds of answer:
#
# * a **function** whose output demonstrates the answer; the cell under it
#   checks it on the chapter's example, the grader on other inputs;
# * a **count**: an exact whole number, an integer (notebook 01's rule for a
#   number answer): compute it with integer arithmetic; a float, even one
#   with nothing after the point, is refused, and so is a rounded figure;
# * a **choice**: the letter of one option, in either case (`"b"` or `"B"`).
#
# For counts and choices, the cell under the question checks only the form
# of your answer; grading marks whether it is right.

# %% setup id=setup_08
import math

import numpy as np

from judge import NotStarted, check, check_answer_form
from workbook import demonstration, my, pick_up_the_cube

X, W_q, W_k, W_v = pick_up_the_cube()
Q, K, V = X @ W_q, X @ W_k, X @ W_v
# `my` reads the SAVED notebook, not its open tab: after a change there, save it and re-run this cell.
# Your own functions from notebooks 02 to 05.
softmax, attention = my("03_softmax_and_mix", "softmax", "attention")
causal_mask = my("05_masks_and_cross_attention", "causal_mask")
softmax_jacobian = my("02_scores_and_scaling", "softmax_jacobian")
split_heads = my("04_heads", "split_heads")

# %% [markdown]
# ## Check yourself
#
# ### Question 8.1: what one attention step can produce (chapter section 4)
#
# Every output row of attention is `Σⱼ A[i, j] V[j]` with non-negative
# weights that add up to one over the rows token `i` may see: a convex
# combination. The short chapter draws the consequence: the output lies in the
# convex hull of those value rows, so attention can select and blend, while
# anything new comes from the matrices around it. Show it on numbers.
#
# The hull lies inside a simpler region, the box whose sides are, number by
# number, the smallest and the largest of the visible value rows. Write
# `hull_excess(O, V, allowed=None)`: `O` is `(n_q, d_v)` outputs, `V` is
# `(n_k, d_v)` value rows, `allowed` is `(n_q, n_k)` booleans (True where
# query `i` may see row `j`; `None` means every row is visible). For every
# output row return how far it sticks out of its box: the largest amount by
# which one of its numbers lies above the largest, or below the smallest, of
# that number over its visible value rows, and 0.0 when it lies inside.
# Return `(n_q,)` in the inputs' float dtype. Raise a `ValueError` on shapes
# that do not fit, or when `allowed` is not booleans of shape `(n_q, n_k)`
# with at least one True per row. About 8 lines.

# %% solution id=hull_excess
def hull_excess(O, V, allowed=None):
    """How far each output row sticks out of the box around the value rows it may see.

    O: (n_q, d_v) outputs; V: (n_k, d_v) value rows; allowed: (n_q, n_k) booleans or None (all visible).
    Returns (n_q,) in the inputs' float dtype: 0.0 inside the box, else the largest overshoot.
    Raises ValueError on shapes that do not fit or a row of allowed with no True.
    """
    ### BEGIN SOLUTION
    O, V = np.asarray(O), np.asarray(V)
    if O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]:
        raise ValueError(f"O and V must be (n_q, d_v) and (n_k, d_v), got O {O.shape} and V {V.shape}")
    allowed = np.ones((len(O), len(V)), dtype=bool) if allowed is None else np.asarray(allowed)
    if allowed.dtype != bool or allowed.shape != (len(O), len(V)) or not allowed.any(axis=1).all():
        raise ValueError(f"allowed must be ({len(O)}, {len(V)}) booleans with a True in every row")
    top = np.where(allowed[:, :, None], V, -np.inf).max(axis=1)
    bottom = np.where(allowed[:, :, None], V, np.inf).min(axis=1)
    return np.maximum(np.maximum(O - top, bottom - O), 0).max(axis=1)
    ### END SOLUTION


# %% [markdown]
# Your measure on your attention, with rows of weights that do and do not
# add up to one: only the convex combination is bound to its values.

# %% locked
with demonstration("attention", "hull_excess"):
    O, A = attention(Q, K, V)
    for name, weights in (("attention's weights", A), ("weights doubled", 2 * A),
                          ("weights with a negative entry", A - 0.3)):
        print(f"{name:>30}: excess per row", " ".join(f"{x:.3f}" for x in hull_excess(weights @ V, V)))

# %% [markdown] written id=written_convex
# ### Written question 8.a: what a convex combination can and cannot make
#
# `hull_excess` showed that attention's outputs stay inside the box around the
# value rows they may see, and that weights which add up to more than one, or
# include a negative, leave it. In three to five sentences: what can one
# attention step make out of the value rows it sees, what can it never make
# (give one concrete example), and where in a transformer does anything
# outside that region come from? Write your answer in the cell below; it is
# graded by hand.
#
# ### BEGIN MARK SCHEME
# **Rubric**, 3 points (for graders; the release and the feedback leave it out):
#
# - **1 point**: each output row is a weighted average of the visible value rows, with weights that
#   are never negative and add up to one, so it lies in their convex hull: it can pick one row (one
#   weight near 1) or blend several. Look for: "hull", "average", "blend", "mix", "between",
#   "select", "pick"
# - **1 point**: a concrete output it cannot make: a number larger than that number in every visible
#   value row (or smaller than in every one), a sign that no visible row has in that place, a vector
#   longer than the longest value row, or anything of a row it is masked from. Look for: "larger
#   than", "bigger than", "greater than", "smaller than", "outside", "longer", "exceed", "sign"
# - **1 point**: anything new comes from the learned matrices and the layers around attention: `W_v`
#   decides what the value rows are, `W_o` maps the mix after it, and the MLP (with the residual
#   stream) computes the rest. Look for: "w_o", "w_v", "mlp", "feed-forward", "feedforward", "linear
#   map", "projection"
#
# Model answer: attention's output is an average of the value rows it may see, with non-negative
# weights that sum to one, so it always lies in their convex hull: it selects one of them or blends
# several. It cannot go beyond them: if every visible value row has a 2 in some place, no output has
# a 3 there, and no output is longer than the longest value row. New vectors come from the matrices
# around the mix (`W_v` before it, `W_o` after it) and from the MLP that follows; attention only
# chooses what to mix.
# ### END MARK SCHEME

# %% [markdown]
# ### Question 8.2: all scores equal (chapter section 4)
#
# Suppose every score in one row of the grid is the same number. What does
# attention output for that query (chapter section 4)? Answer with a function:
# `equal_scores(V)` takes the value rows the query may see,
# `V` of shape `(..., n_k, d_v)`, and returns what attention outputs for that
# query, shape `(..., d_v)`. Keep the dtype of float input (float32 in,
# float32 out). About 2 lines.

# %% solution id=equal_scores
def equal_scores(V):
    """Attention's output for a query whose scores over V's rows are all equal.

    V: (..., n_k, d_v) the value rows the query may see.
    Returns (..., d_v), in V's float dtype.
    """
    ### BEGIN SOLUTION
    V = np.asarray(V)
    return V.sum(axis=-2) / V.shape[-2]
    ### END SOLUTION


# %% tests id=hidden_equal_scores
# On the worked example's value rows, and on a float32 batch; the hidden checks run when your work is graded.
check("equal_scores", equal_scores)
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("equal_scores", equal_scores)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 8.3: one pass, every position (chapter section 6)
#
# A model learning to predict the next token gets, at position `i`, the true
# tokens `0 … i` and is asked for token `i + 1`. The short chapter says the
# causal mask lets one forward pass train every position at once. Measure
# the reason on your own attention: a position whose output moves with its
# target could read off its answer instead of predicting it.
#
# Write `leaked_targets(X, mask)`: `X` is `(n, d)` tokens that serve as their
# own queries, keys and values, and `mask` is an additive `(n, n)` mask (0
# allows a pair, −∞ forbids it). Run your `attention(X, X, X, mask)` once.
# Then, for each position `i` from 0 to `n − 2`, add 1.0 to every number of
# token `i + 1` in a copy of `X` (never change the caller's `X`), run
# attention on that copy with the same mask, and compare its output row `i`
# with the first run's. Return, as a Python int, how many positions `i` have
# an output row that differs in some number (exact comparison: a forbidden
# pair contributes exactly nothing). With a causal mask the count is 0, and
# that is why one pass can take the true sequence as it is. Raise a
# `ValueError` when `X` is not 2-D or `mask` is not `(n, n)`. About 10 lines.

# %% solution id=leaked_targets
def leaked_targets(X, mask):
    """How many positions can read the token they are trained to predict.

    X: (n, d) tokens, used as queries, keys and values; mask: (n, n) additive: 0 allows, -inf forbids.
    Returns an int: the positions i < n - 1 whose output row changes when token i + 1 changes.
    Raises ValueError when X is not 2-D or mask is not (n, n).
    """
    ### BEGIN SOLUTION
    X, mask = np.asarray(X, dtype=np.float64), np.asarray(mask, dtype=np.float64)
    if X.ndim != 2 or mask.shape != (len(X), len(X)):
        raise ValueError(f"X must be (n, d) and mask (n, n), got X {X.shape} and mask {mask.shape}")
    before, _ = attention(X, X, X, mask)
    leaks = 0
    for i in range(len(X) - 1):
        changed = X.copy()
        changed[i + 1] += 1.0
        after, _ = attention(changed, changed, changed, mask)
        leaks += int((after[i] != before[i]).any())
    return leaks
    ### END SOLUTION


# %% [markdown]
# Eight random tokens, with your causal mask and without a mask.

# %% locked
with demonstration("attention", "causal_mask", "leaked_targets"):
    tokens = np.random.default_rng(8).standard_normal((8, 4))
    print("with your causal mask of 8 tokens,", leaked_targets(tokens, causal_mask(8)), "positions can read their target;",
          "without a mask,", leaked_targets(tokens, np.zeros((8, 8))))

# %% [markdown]
# ### Question 8.4: the head size of a large model (chapter section 5)
#
# A layer of width `d` with `h` heads cuts every query, key and value row into
# `h` pieces, one per head. Which numbers of a row does a head get, and how
# many? Find out with your `split_heads` from notebook 04. Write
# `head_columns(d, n_heads)`: put one token whose numbers are their own
# column positions, the row `0, 1, …, d − 1` as a `(1, d)` array, through your
# `split_heads(M, n_heads)`, and return an integer array of shape
# `(n_heads, d_k)` whose row `m` lists the columns of the token that head `m`
# gets. Raise a `ValueError` when `d` is not a positive integer or `n_heads`
# does not divide `d`. About 3 lines. The chapter's large model has width
# `d = 4096` and `h = 32` heads: the length of a row of
# `head_columns(4096, 32)` is its head size `d_k`, and the check below
# runs your function on it.

# %% solution id=head_columns
def head_columns(d, n_heads):
    """The columns of a token of width d that each of n_heads heads gets, read from split_heads.

    Returns an (n_heads, d // n_heads) integer array: row m lists head m's columns.
    Raises ValueError when d is not a positive integer or n_heads does not divide d.
    """
    ### BEGIN SOLUTION
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return split_heads(np.arange(d)[None], n_heads)[:, 0, :].astype(int)
    ### END SOLUTION


# %% locked
with demonstration("split_heads", "head_columns"):
    columns = head_columns(4096, 32)
    print("32 heads of a width-4096 model: head 0 gets columns", columns[0, :3], "…", columns[0, -1],
          "| head 31 gets", columns[31, :3], "…", columns[31, -1])

# %% [markdown]
# ### Question 8.5: the weights of that attention block (chapter section 5)
#
# Same model, `d = 4096` and `h = 32`, with full multi-head attention: how many
# weights do `W_Q`, `W_K`, `W_V` and `W_O` hold together (no biases; chapter
# section 5)? Set `PARAMS_4096` to the exact count, every digit of it, not a
# figure rounded to millions.

# %% solution id=params_4096
# Replace `raise NotStarted()` below with PARAMS_4096 = <a whole number>.
### BEGIN SOLUTION
PARAMS_4096 = 4 * 4096**2
### END SOLUTION

# %% tests id=hidden_params_4096
# Form only: a positive whole number. The value is marked when your work is graded.
check_answer_form("PARAMS_4096", globals())
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("params_4096", PARAMS_4096)
### END HIDDEN TESTS

# %% [markdown]
# ## Could you have skipped the chapter?
#
# The chapter lets you skip it if you can write its formula from memory and
# explain the √d, the causal mask and the heads. One question each.
#
# ### Question 8.6: the formula (chapter section 4)
#
# Queries `Q`, keys `K` and values `V` of head size `d = 64`, several tokens.
# Someone writes the formula with the division in the wrong place:
# $\operatorname{softmax}(QK^{\top})\,V / 8$, where 8 is $\sqrt{64}$. Compared
# with what scaled dot-product attention gives on the same `Q`, `K` and `V`,
# what does this line do?
#
# * **a.** Nothing different: dividing by 8 before the softmax or after the
#   mix gives the same outputs, because both are a division by a constant.
# * **b.** It gives the same weights on the tokens; only every output is 8
#   times smaller.
# * **c.** Its weights are those of the unscaled scores, more peaked than the
#   right ones, and the mix made with them is then shrunk to an eighth.
# * **d.** Its weights are flatter than the right ones, closer to an equal
#   share per token, because the division by 8 comes too late to sharpen
#   them.
#
# Set `SKIP_FORMULA` to your letter.

# %% solution id=skip_formula
# Replace `raise NotStarted()` below with SKIP_FORMULA = "<letter>".
### BEGIN SOLUTION
SKIP_FORMULA = "c"
### END SOLUTION

# %% tests id=hidden_skip_formula
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_FORMULA", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_formula", SKIP_FORMULA)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 8.7: why √d, measured on the gradient (chapter section 3)
#
# Notebook 02 measured what the head size does to the scores: their spread
# grows like √d_k unless they are divided by it. The short chapter's reason
# for caring is training: large scores saturate the softmax, and then almost
# no gradient gets through it to the scores. Measure that gradient.
#
# Write `gradient_size(Q, K)`: `Q` is `(t, d_k)`, `t` queries, and `K` is
# `(t, n_k, d_k)`, the `n_k` keys that query `m` meets in `K[m]`. Query `m`
# scores `K[m] @ Q[m]`. Put each query's row of raw scores through your
# `softmax_jacobian` (notebook 02) and take the size of that `(n_k, n_k)`
# grid, its Frobenius norm √(Σᵢⱼ Jᵢⱼ²); do the same with the same scores
# divided by `√d_k`. Return a tuple of two Python floats: the mean size over
# the `t` queries for the raw scores, then for the scaled ones. Compute in
# float64, whatever the inputs' dtype. Raise a `ValueError` when `Q` is not
# `(t, d_k)` or `K` is not `(t, n_k, d_k)` with the same `t` and `d_k`. About
# 6 lines. Then read the table under it: which scores leave training a
# gradient to follow at every head size?

# %% solution id=gradient_size
def gradient_size(Q, K):
    """The mean size of softmax's gradient grid over t queries, at the raw and at the scaled scores.

    Q: (t, d_k) queries; K: (t, n_k, d_k), the keys of each query.
    Returns (raw size, scaled size), two floats, computed in float64.
    Raises ValueError when Q is not (t, d_k) or K not (t, n_k, d_k) with the same t and d_k.
    """
    ### BEGIN SOLUTION
    Q, K = np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64)
    if Q.ndim != 2 or K.ndim != 3 or K.shape[0] != Q.shape[0] or K.shape[2] != Q.shape[1]:
        raise ValueError(f"Q must be (t, d_k) and K (t, n_k, d_k), got Q {Q.shape} and K {K.shape}")
    raw = np.einsum("td,tkd->tk", Q, K)
    sizes = [np.linalg.norm(softmax_jacobian(s), axis=(-2, -1)).mean() for s in (raw, raw / math.sqrt(Q.shape[1]))]
    return float(sizes[0]), float(sizes[1])
    ### END SOLUTION


# %% [markdown]
# Your `gradient_size` at five head sizes, 200 queries against 64 keys each,
# beside the spread of the raw scores and the largest weight your softmax
# gives them.

# %% locked
rng = np.random.default_rng(2)
with demonstration("softmax_jacobian", "gradient_size", "softmax"):
    print("  d_k   spread of raw scores   gradient size: raw  scaled   largest of 64 weights: raw  scaled")
    for d_k in (4, 16, 64, 256, 1024):
        queries, keys = rng.standard_normal((200, d_k)), rng.standard_normal((200, 64, d_k))
        raw, scaled = gradient_size(queries, keys)
        S = np.einsum("td,tkd->tk", queries, keys)
        top_raw, top_scaled = (softmax(S / c, axis=-1).max(axis=-1).mean() for c in (1.0, math.sqrt(d_k)))
        print(f"{d_k:>5}   {S.std():>20.1f}   {raw:>18.3f}  {scaled:>6.3f}   {top_raw:>26.3f}  {top_scaled:>6.3f}")

# %% [markdown]
# ### Question 8.8: the causal mask (chapter section 6)
#
# A model trained to predict the next token runs on four tokens, positions 0
# to 3, with the causal mask. Entry `(i, j)` of the 4 × 4 mask sits in row `i`
# (the query, token `i`) and column `j` (the key, token `j`). Which
# description of that mask is right?
#
# * **a.** −∞ at (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2); token 2
#   reads tokens 2 and 3.
# * **b.** −∞ at (0, 3), (1, 3), (2, 3); token 2 reads tokens 0, 1 and 2,
#   and token 3, whose successor is not in the input, reads all four.
# * **c.** −∞ at (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3); token 2
#   reads tokens 0, 1 and 2.
# * **d.** −∞ at the ten entries (i, j) with j ≥ i; token 2 reads tokens 0
#   and 1, and token 0 reads nothing.
#
# Set `SKIP_CAUSAL` to your letter.

# %% solution id=skip_causal
# Replace `raise NotStarted()` below with SKIP_CAUSAL = "<letter>".
### BEGIN SOLUTION
SKIP_CAUSAL = "c"
### END SOLUTION

# %% tests id=hidden_skip_causal
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_CAUSAL", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_causal", SKIP_CAUSAL)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 8.9: what heads buy (chapter section 5)
#
# A layer of width `d = 512` on `n` tokens runs 8 heads of size 64 instead of
# one head of size 512. `W_Q`, `W_K`, `W_V` and `W_O` are `512 × 512` either
# way, so both layers hold the same `4·d²` weights. What does the layer gain?
#
# * **a.** Nothing but speed: the 8 heads' scores add up to the one head's
#   scores, so the layer's outputs are the same, computed in smaller pieces.
# * **b.** Sharper weights: a head of size 64 divides its scores by 8, not by
#   √512 ≈ 22.6, so its scores spread wider and its softmax is more decisive.
# * **c.** Each head compares only `n / 8` of the tokens, so every head's
#   grid of weights is `(n / 8) × (n / 8)` and the 8 grids together cost an
#   eighth of the one head's.
# * **d.** Eight grids of weights instead of one: each head scores with its
#   own 64 columns of the queries and keys, so the heads can weigh the same
#   tokens in different ways, say one the token before and another the first.
#
# Set `SKIP_HEADS` to your letter.

# %% solution id=skip_heads
# Replace `raise NotStarted()` below with SKIP_HEADS = "<letter>".
### BEGIN SOLUTION
SKIP_HEADS = "d"
### END SOLUTION

# %% tests id=hidden_skip_heads
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_HEADS", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_heads", SKIP_HEADS)
### END HIDDEN TESTS

# %% [markdown]
# That is the whole of the chapter's checklist. Notebook 09 goes one step
# further: it opens a small trained model and asks what its heads do.
