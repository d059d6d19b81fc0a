# %% [markdown]
# # Attention, part 3: softmax and the mix
#
# This notebook follows section 4 of the chapter. Each row of scaled scores
# becomes a row of weights (never negative, adding up to one), and each token's
# new vector is the weighted mix of the value vectors. At the end you have all
# of attention in a handful of matrix operations:
#
# `output = softmax(Q Kᵀ / √d_k + mask) V`, with the softmax taken along each row.

# %% setup id=setup_03
import math

import numpy as np

from judge import NotStarted, check
from workbook import TOKENS, demonstration, pick_up_the_cube

X, W_q, W_k, W_v = pick_up_the_cube()
# The chapter's listing: one matrix multiply each, then the scaled scores (d_k = 4).
Q, K, V = X @ W_q, X @ W_k, X @ W_v
S = Q @ K.T / math.sqrt(Q.shape[-1])

# %% [markdown]
# ## 4. Softmax (chapter section 4)
#
# Softmax turns a row of scores `s₁ … s_n` into weights `exp(sⱼ) / Σₖ exp(sₖ)`:
# the exponential makes every number positive, and dividing by the total makes
# them add up to one. Each extra point of score multiplies the exponential by
# e ≈ 2.718, so modest differences in score turn into lopsided weights: softmax
# can concentrate a token on one other token rather than averaging evenly.
#
# Three things a real softmax must get right:
#
# * **Large scores.** `exp(710)` is already infinite in float64 (`exp(89)` in
#   float32). Subtract the row's largest score first: that multiplies the top
#   and the bottom of every fraction by the same number, so the weights do not
#   change, but now every exponent is at most 0.
# * **Forbidden pairs.** A mask puts `−inf` where a pair is forbidden;
#   `exp(−inf)` is exactly 0, so that pair gets a weight of exactly 0.
# * **A row where everything is forbidden.** Its largest score is `−inf`, and
#   `−inf − (−inf)` is NaN. Such a row must come out all zeros, with no NaN and
#   no warning: shift it by 0 instead, and do not divide where the total is 0
#   (`np.divide` takes `out=` and `where=`).
#
# ### Exercise 3.1: `softmax`
#
# Write `softmax(S, axis=-1)`: softmax along `axis` of an array `S` of any
# shape, returning an array of the same shape. Float32 stays float32; integers
# are computed in float64. It must work for scores up to ±1e4. Use no loop.
# About 6 lines.

# %% solution id=softmax
def softmax(S, axis=-1):
    """Weights that are never negative and add up to one along `axis`.

    S: any shape, the scores. Returns the same shape and dtype (integers give float64).
    Stable for scores up to ±1e4; −inf gives a weight of exactly 0; a slice whose
    scores are all −inf gives all-zero weights, with no NaN and no warning.
    """
    ### BEGIN SOLUTION
    S = np.asarray(S)
    if S.dtype.kind != "f":
        S = S.astype(np.float64)
    top = S.max(axis=axis, keepdims=True)
    top[np.isneginf(top)] = 0  # an all-forbidden slice: shift by nothing rather than make NaN
    e = np.exp(S - top)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    ### END SOLUTION


# %% [markdown]
# The chapter's table for "cube", one column per key: its scaled scores, their
# exponentials, and your softmax of the row. The exponentials add up to 1.272,
# and each weight is its exponential divided by that total.

# %% locked
with demonstration("softmax"):
    weights = softmax(S[3])
    print("key        " + "".join(f"{t:>9}" for t in TOKENS))
    print("score      " + "".join(f"{s:+9.3f}" for s in S[3]))
    print("exp(score) " + "".join(f"{x:9.3f}" for x in np.exp(S[3])), f"  total {np.exp(S[3]).sum():.3f}")
    print("weight     " + "".join(f"{w:9.3f}" for w in weights), f"  total {weights.sum():.3f}")
    print("chapter    " + "".join(f"{w:9.3f}" for w in (0.683, 0.103, 0.168, 0.046)))

# %% locked
# The row of "cube" as bars, from your softmax.
import figures

figures.cube_weights(softmax)

# %% locked
# Every row at once: the weight grid, from your softmax.
import figures

figures.weight_grid(softmax)

# %% [markdown]
# How much a lead is worth: two keys, one ahead of the other by `lead`. Then the
# hard cases above, so you can see your softmax handle them (each row should add
# up to 1, except the fully forbidden one, which should be all zeros).

# %% locked
with demonstration("softmax"):
    leads = {lead: softmax(np.array([lead, 0.0]))[0] for lead in (0.0, 1.0, 2.0, 4.0)}
    chapter = {0.0: "0.500", 1.0: "0.731", 4.0: "0.982"}
    print("lead   weight of the leader   chapter")
    for lead, w in leads.items():
        print(f"{lead:>4.0f}   {w:>20.3f}   {chapter.get(lead, '')}")
    hard = np.array([[1e4, 0.0, -1e4], [0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    print("\nscores", hard.tolist(), "\nweights", softmax(hard).round(3).tolist())

# %% locked
# The lead table as a curve, from your softmax.
import figures

figures.softmax_lead(softmax)

# %% [markdown]
# ### From a soft lookup to a hard match
#
# A hash table finds the one key that matches and returns its value: a hard
# match. Attention returns a blend, weighted by softmax: a soft match. The two
# are ends of one scale, and the size of the scores sets where a row sits on
# it. With two keys whose scores differ by `lead`, the leader's weight is
# `e^lead / (e^lead + e^0)`: a half at no lead, and nearer one with every point
# of lead, until the blend is a copy of one value.
#
# ### Exercise 3.2: `lead_share`
#
# Write `lead_share(lead)`: `lead` is a number or an array of any shape, each
# entry the lead of one key over a second key. Return an array of the same
# shape holding the weight softmax gives the leading key (float32 stays
# float32; integers and plain numbers are computed in float64, and a plain number gives
# one number, as notebook 01's rule allows it). It must give exactly 1.0 and 0.0 for leads of
# ±1000, not NaN. Use your `softmax` on the pair `(lead, 0)`, or write the
# stable form yourself. About 3 lines.

# %% solution id=lead_share
def lead_share(lead):
    """The weight of the leading key of two whose scores differ by `lead`.

    lead: (...) a number or an array of leads.
    Returns (...) in lead's float dtype (integers and numbers give float64).
    """
    ### BEGIN SOLUTION
    lead = np.asarray(lead)
    lead = lead if lead.dtype.kind == "f" else lead.astype(np.float64)
    return softmax(np.stack([lead, np.zeros_like(lead)], axis=-1))[..., 0]
    ### END SOLUTION


# %% [markdown]
# Scores grow, the lookup hardens: here every score of the row of "cube" is
# multiplied by a growing factor. The weight of its favourite key climbs
# towards 1 while the others fall towards 0; beside it, what your
# `lead_share` gives for the favourite's lead over the runner-up alone.

# %% locked
runner_up, favourite = np.sort(S[3])[-2:]
with demonstration("softmax", "lead_share"):
    for factor in (0.25, 1, 4, 16, 64):
        row = softmax(factor * S[3])
        lead = factor * (favourite - runner_up)
        print(f"scores × {factor:>5}: weights", " ".join(f"{w:.3f}" for w in row),
              f"  lead {lead:6.2f} over the runner-up alone: {float(lead_share(lead)):.3f}")

# %% [markdown]
# ## The mix, and the whole thing as matrices
#
# A token's new vector is its row of weights applied to the value vectors:
# `o_i = Σⱼ A[i, j] v_j`. With every token's weights as the rows of `A`, that is
# one matrix product, `O = A V`. Put together:
#
# 1. `S = Q Kᵀ / √d_k`, one score per (query, key) pair;
# 2. add the mask: 0 where a pair is allowed, `−inf` where it is forbidden
#    (section 6 builds masks; here you only add one if it is given);
# 3. `A = softmax(S)` along each row, over the keys;
# 4. `O = A V`.
#
# Nothing requires the queries to come from the same tokens as the keys and
# values. When they come from a different set, it is **cross-attention**, and
# the only change is the shapes: `n_q` queries against `n_k` keys give an
# `n_q × n_k` grid of weights.
#
# ### Exercise 3.3: `attention`
#
# Write `attention(Q, K, V, mask=None)` returning the tuple `(output, weights)`.
# `Q` is `(..., n_q, d_k)`, `K` is `(..., n_k, d_k)`, `V` is `(..., n_k, d_v)`
# and `mask`, when given, is additive and broadcasts to `(..., n_q, n_k)`. The
# output is `(..., n_q, d_v)` and the weights `(..., n_q, n_k)`. Use your
# `softmax`. Add the mask in the dtype of the scores (a float64 mask must not
# turn float32 scores into float64). Raise a `ValueError` naming the shapes when
# `Q` and `K` differ in `d_k`, or `K` and `V` differ in the number of keys, or
# when one of `Q`, `K`, `V` has fewer than 2 dimensions. About 8 lines.

# %% solution id=attention
def attention(Q, K, V, mask=None):
    """Scaled dot-product attention: softmax(Q Kᵀ / √d_k + mask) V.

    Q: (..., n_q, d_k); K: (..., n_k, d_k); V: (..., n_k, d_v);
    mask: additive, broadcastable to (..., n_q, n_k): 0 allows a pair, −inf forbids it.
    Returns (output (..., n_q, d_v), weights (..., n_q, n_k)); n_q ≠ n_k is cross-attention.
    Raises ValueError when Q and K differ in d_k, K and V in the number of keys, or one has fewer than 2 dimensions.
    """
    ### BEGIN SOLUTION
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    if min(Q.ndim, K.ndim, V.ndim) < 2 or Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(f"need Q (..., n_q, d_k), K (..., n_k, d_k) and V (..., n_k, d_v), "
                         f"got Q {Q.shape}, K {K.shape} and V {V.shape}")
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + np.asarray(mask).astype(scores.dtype, copy=False)
    weights = softmax(scores, axis=-1)
    return weights @ V.astype(weights.dtype, copy=False), weights
    ### END SOLUTION


# %% [markdown]
# Your attention on the worked example: the weight grid, one row per token that
# asks, and the new vector of "cube" with its first number worked out the way
# the chapter does it, from weights and values rounded as printed.

# %% locked
with demonstration("attention"):
    O, A = attention(Q, K, V)
    print("weights     " + "".join(f"{t:>8}" for t in TOKENS) + "     total")
    for token, row in zip(TOKENS, A):
        print(f"{token:>11} " + "".join(f"{w:8.3f}" for w in row) + f"  {row.sum():8.3f}")
    terms = [(round(w, 3), round(v, 2)) for w, v in zip(A[3], V[:, 0])]
    print("\nfirst number of cube:", " + ".join(f"{w:.3f}×({v:+.2f})" for w, v in terms),
          f"= {sum(w * v for w, v in terms):+.4f}")
    print("new vector of cube:", np.array2string(O[3], precision=2, sign="+"), "  chapter: +0.58 -1.08 +0.54 +0.12")

# %% locked
# Chapter section 1's comparison: fixed weights against the weights of your attention.
import figures

figures.convolution_vs_attention(attention)

# %% [markdown]
# ## Where a neighbour sits, or what it holds (chapter section 1)
#
# The figure above sets a convolution's weights beside your attention's. Each
# row of the convolution is the same few numbers slid one place along: how
# much token `i` takes from token `j` is settled by the offset `j − i` alone,
# before a single token has been read. Attention's weights come from queries
# and keys, so from what the tokens hold. A picture only suggests this; a
# shuffle puts it to the test.
#
# Shuffle a sentence with a permutation `perm` of its positions: `X[perm]` is
# the sentence whose row `i` is the original token `perm[i]`. A layer `f` that
# is blind to position gives each token the same new vector wherever it
# stands, so its output on the shuffled sentence is its old output shuffled
# the same way: `f(X[perm]) = f(X)[perm]`. For a layer that reads positions,
# the two sides part.
#
# The fixed mix to test is a convolution of the value vectors `V = X W_v`.
# Its `kernel` holds an odd number `2r + 1` of weights, one for each offset
# from `−r` to `r`: new row `i` is `Σₖ kernel[k + r] · V[i + k]`, so
# `kernel[0]` weighs the value `r` places before and `kernel[-1]` the value
# `r` places after. An offset that would leave the sentence adds nothing
# (zero padding: the sentence does not wrap round).
#
# ### Exercise 3.4: `permutation_gaps`
#
# Write `permutation_gaps(X, W_q, W_k, W_v, kernel, perm)` for one sentence
# `X` of shape `(n, d)`, with `W_q`, `W_k` of shape `(d, d_k)` and `W_v` of
# shape `(d, d_v)` as in notebook 01. Return the tuple
# `(attention_gap, fixed_gap)`: first for `f` your self-attention (the output
# of attention on the queries, keys and values of the sentence it is given),
# then for `f` the fixed mix, the largest `|f(X[perm]) − f(X)[perm]|` over all
# the numbers of the output. Use your `attention(Q, K, V)`. The two gaps are
# numbers computed in float64 whatever the inputs' dtype (convert the inputs
# first), so that rounding is as small as it can be. Raise a `ValueError` when
# `perm` is not a permutation of `0 … n − 1` (a position repeated or missing,
# or the wrong length), or when `kernel` is not one-dimensional with an odd
# number of weights. About 12 lines.

# %% solution id=permutation_gaps
def permutation_gaps(X, W_q, W_k, W_v, kernel, perm):
    """How far self-attention and a fixed mix are from following a shuffle of the tokens.

    X: (n, d) one sentence; W_q, W_k: (d, d_k); W_v: (d, d_v);
    kernel: (2r + 1,) one weight per offset −r … r; perm: (n,) each of 0 … n − 1 once.
    Returns (attention_gap, fixed_gap), each the largest |f(X[perm]) − f(X)[perm]|, in float64.
    Raises ValueError when perm is not a permutation or kernel is not 1-D of odd length.
    """
    ### BEGIN SOLUTION
    X, W_q, W_k, W_v, kernel = (np.asarray(a, dtype=np.float64) for a in (X, W_q, W_k, W_v, kernel))
    perm = np.asarray(perm)
    n = len(X)
    if kernel.ndim != 1 or kernel.size % 2 == 0:
        raise ValueError(f"kernel must be 1-D with an odd number of weights, got shape {kernel.shape}")
    if perm.shape != (n,) or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"perm must hold each position 0 … {n - 1} once, got {perm.tolist()}")
    r = kernel.size // 2
    offset = np.arange(n)[None, :] - np.arange(n)[:, None]  # j − i
    C = np.where(np.abs(offset) <= r, kernel[np.clip(offset + r, 0, 2 * r)], 0.0)

    def self_attention(T):
        return attention(T @ W_q, T @ W_k, T @ W_v)[0]

    def fixed_mix(T):
        return C @ (T @ W_v)

    return tuple(float(np.abs(f(X[perm]) - f(X)[perm]).max()) for f in (self_attention, fixed_mix))
    ### END SOLUTION


# %% [markdown]
# Your gaps on the worked example, for three shuffles and two kernels: the
# even one of the figure and a lopsided one. Look at the reversed sentence
# with the even kernel: a kernel that reads the same both ways cannot tell a
# sentence from its mirror image, so a single shuffle that leaves a gap of 0
# proves nothing about a layer.

# %% locked
with demonstration("permutation_gaps", "attention"):
    shuffles = {"cube pick up the": [3, 0, 1, 2], "the pick cube up": [2, 0, 3, 1], "cube the up pick": [3, 2, 1, 0]}
    kernels = {"0.25 0.50 0.25": np.array([0.25, 0.5, 0.25]), "0.6 0.3 0.1": np.array([0.6, 0.3, 0.1])}
    print(f"{'shuffled to':<18}{'kernel':<16}{'attention gap':>14}{'fixed mix gap':>15}")
    for words, perm in shuffles.items():
        for name, kernel in kernels.items():
            gap_a, gap_f = permutation_gaps(X, W_q, W_k, W_v, kernel, np.array(perm))
            print(f"{words:<18}{name:<16}{float(gap_a):>14.1e}{float(gap_f):>15.3f}")

# %% [markdown]
# ### How far a token reads
#
# A convolution of width `2r + 1` takes nothing from a token more than `r`
# places off, whatever the sentence says. Attention has no such horizon: how
# far a query reads depends on where the tokens it looks for happen to
# stand. One number per query measures it: the distance to each key,
# weighted by how much the query takes from that key and added up,
# `Σⱼ A[i, j] · |i − j|`. As the weights of a row add up to one, that is the
# average distance the query reads over.
#
# ### Exercise 3.5: `reach`
#
# Write `reach(weights)` for a grid of self-attention weights `(..., n, n)`
# (row `i` the weights of query `i` over the keys of its own sentence),
# returning the `(..., n)` array whose number `i` is that weighted distance
# for query `i`. Float32 stays float32. Raise a `ValueError` when `weights`
# has fewer than two dimensions or its last two differ. Use no loop. About
# 4 lines.

# %% solution id=reach
def reach(weights):
    """The weighted average distance each query reads over: Σⱼ A[i, j] · |i − j|.

    weights: (..., n, n) self-attention weights, one row per query.
    Returns (..., n) in weights' float dtype.
    Raises ValueError when weights is not (..., n, n).
    """
    ### BEGIN SOLUTION
    A = np.asarray(weights)
    A = A if A.dtype.kind == "f" else A.astype(np.float64)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"weights must be (..., n, n), got shape {A.shape}")
    position = np.arange(A.shape[-1])
    return (A * np.abs(position[:, None] - position[None, :]).astype(A.dtype)).sum(axis=-1)
    ### END SOLUTION


# %% [markdown]
# Near and far. The chapter says one attention layer can draw on a word three
# places back in one sentence and ninety places back in the next. Here are two
# sentences of 94 tokens that end in "up the cube", with "pick" either just
# before them (3 places back from "cube") or 90 places back. Every other token
# is a filler made from the worked example's matrices so that the query of
# "cube" scores it −12: content that "cube" is not looking for. The layer is
# the worked example's, unchanged; your `attention` gives the weights and your
# `reach` how far "cube" reads. Beside them, the reach of the figure's
# convolution on the same 94 tokens, which no sentence can change.

# %% locked
with demonstration("attention", "reach"):
    u = W_k @ Q[3]
    filler = -u * (2 * 12 / (u @ u))  # its key meets the query of "cube" at a scaled score of −12

    def sentence_with_pick(back, n=94):
        T = np.array([filler] * (n - 3) + list(X[1:]))  # ... up the cube
        T[-1 - back] = X[0]                              # "pick", `back` places before "cube"
        return T

    for back in (3, 90):
        T = sentence_with_pick(back)
        _, A_long = attention(T @ W_q, T @ W_k, T @ W_v)
        print(f"'pick' {back:>2} places back: 'cube' gives it {A_long[-1, -1 - back]:.3f} of its mix"
              f" and reads {float(reach(A_long)[-1]):5.2f} places back on average")
    conv = 0.25 * np.eye(94, k=-1) + 0.5 * np.eye(94) + 0.25 * np.eye(94, k=1)
    farthest = np.abs(np.subtract.outer(np.arange(94), np.arange(94)))[conv > 0].max()
    print(f"the convolution 0.25, 0.50, 0.25 on any 94 tokens: reach at most {float(reach(conv).max()):.2f},"
          f" and nothing taken from more than {farthest} place away")

# %% locked
# The same two sentences drawn: the weight "cube" gives each token, by how far back it stands, from your attention.
import figures

figures.near_and_far(attention)

# %% [markdown]
# ### The sizes of a real layer
#
# The chapter gives the sizes for a small language model: 512 tokens, each a
# vector of 768 numbers, cut into 12 heads. Every grid of one row per token
# (the tokens, the queries, the keys, the values and the output) holds
# `n × d` numbers; a head's score grid holds one number per pair of tokens,
# and every head has its own.
#
# ### Exercise 3.6: `layer_counts`
#
# Write `layer_counts(n, d, n_heads)` returning a tuple of three Python ints:
# the numbers in one token-by-width grid, the numbers in one head's score grid,
# and the numbers in the score grids of all `n_heads` heads together. Raise a
# `ValueError` when a size is not a positive integer or `n_heads` does not
# divide `d`. About 5 lines.

# %% solution id=layer_counts
def layer_counts(n, d, n_heads):
    """The sizes of one attention layer on n tokens of width d in n_heads heads.

    Returns (n·d, numbers in one head's score grid, numbers in every head's score grid), ints.
    Raises ValueError on a size that is not a positive int or when n_heads does not divide d.
    """
    ### BEGIN SOLUTION
    for name, value in (("n", n), ("d", d), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return int(n * d), int(n * n), int(n_heads * n * n)
    ### END SOLUTION


# %% [markdown]
# Cross-attention is the same function with fewer (or more) queries than keys.
# Here only "the" and "cube" ask, and all four tokens answer: the grid is 2 × 4,
# and each row equals that token's row above, because a query's weights depend
# on its own query and on the keys, never on the other queries.

# %% locked
with demonstration("attention"):
    O_cross, A_cross = attention(Q[2:], K, V)
    print("weights", A_cross.shape, "output", O_cross.shape)
    print(A_cross.round(3))

# %% [markdown]
# That is all of attention for one head. Notebook 04 runs several smaller
# heads side by side.
