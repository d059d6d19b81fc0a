# %% [markdown]
# # Attention, part 2: scores and scaling
#
# This notebook follows section 3 of the chapter. Every query is compared with
# every key, which gives one number, the **score**, per (query, key) pair. You
# measure why the model needs separate queries and keys to make them (section
# 2), then find out by simulation why the scores are divided by √d_k before
# anything else happens to them.
#
# The conventions of notebook 01 hold: `...` in a shape means any number of
# leading batch dimensions, float32 input gives float32 output, and integer
# input is computed in float64.

# %% setup id=setup_02
import math

import numpy as np

from judge import NotStarted, check
from workbook import TOKENS, demonstration, pick_up_the_cube

X, W_q, W_k, W_v = pick_up_the_cube()
# The chapter's listing makes the three grids with one matrix multiply each,
# exactly what your project_qkv of notebook 01 does.
Q, K, V = X @ W_q, X @ W_k, X @ W_v

# %% [markdown]
# ## 3. The score between one query and every key (chapter section 3)
#
# The score of query `q` against key `k` is their **dot product**: multiply
# them number by number and add up, `q·k = q₁k₁ + q₂k₂ + … + q_d k_d`.
# It measures fit because it equals `|q| |k| cos θ`, where θ is the angle
# between the two vectors. Aligned vectors score high, perpendicular ones score
# 0, and opposed ones score as low as they can. For `d` numbers it costs `d`
# multiply-adds, which makes it the cheapest comparison that still works.
#
# Here is one vector of length 2 held still while another of length 2 turns away from it:

# %% locked
still = np.array([2.0, 0.0])
print("angle   dot product")
for degrees in range(0, 181, 45):
    turning = 2 * np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])
    print(f"{degrees:>4}°   {still @ turning:+8.2f}")

# %% [markdown]
# The chapter works out the score of "cube" (the query) against "pick" (the key)
# by hand. The four products and their sum:

# %% locked
products = Q[3] * K[0]
print("q(cube) · k(pick) =", " + ".join(f"({p:+.4f})" for p in products), f"= {products.sum():+.4f}")

# %% [markdown]
# ### Exercise 2.1: `raw_scores`
#
# Write `raw_scores(Q, K)`: the score of every query against every key, all at
# once. With the queries as the rows of `Q` and the keys as the rows of `K`,
# that is the matrix product `S = Q Kᵀ`, so `S[i, j] = q_i · k_j`.
# `Q` is `(..., n_q, d_k)` and `K` is `(..., n_k, d_k)`; the answer is
# `(..., n_q, n_k)`. With batch dimensions, turn only the last two axes of `K`
# on their side (`K.T` reverses *all* of them). Raise a `ValueError` naming both
# shapes when `Q` and `K` have fewer than 2 dimensions or different last
# dimensions. About 4 lines.

# %% solution id=raw_scores
def raw_scores(Q, K):
    """Every query against every key: S[..., i, j] = q_i · k_j.

    Q: (..., n_q, d_k) queries; K: (..., n_k, d_k) keys.
    Returns (..., n_q, n_k), in the dtype of the inputs (integers give float64).
    Raises ValueError when Q and K are not (..., n, d_k) with one d_k.
    """
    ### BEGIN SOLUTION
    Q, K = (np.asarray(a) for a in (Q, K))
    Q, K = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K))
    if Q.ndim < 2 or K.ndim < 2 or Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must be (..., n, d_k) with the same d_k, got Q {Q.shape} and K {K.shape}")
    return Q @ np.swapaxes(K, -1, -2)
    ### END SOLUTION


# %% [markdown]
# Your grid for the worked example, one row per query (the token that asks)
# and one column per key (the token that answers):

# %% locked
with demonstration("raw_scores"):
    S = raw_scores(Q, K)
    print("query \\ key", "".join(f"{t:>8}" for t in TOKENS))
    for token, row in zip(TOKENS, S):
        print(f"{token:>11}", "".join(f"{s:+8.2f}" for s in row))
    print(f"largest {S.max():+.2f}, smallest {S.min():+.2f}")

# %% locked
# The same grid as a heat map, drawn from your raw_scores.
import figures

figures.score_grid(raw_scores)

# %% [markdown]
# ## Why queries and keys are two matrices (chapter section 2)
#
# The model could skip `W_q` and `W_k` and score the tokens against each
# other directly: `X Xᵀ`. Two things go wrong. That grid is **symmetric**
# (`x_i·x_j = x_j·x_i`), so "how much i wants j" is always "how much j wants
# i". And its diagonal holds `x_i·x_i = |x_i|²`, so a token tends to match
# itself best: for any two tokens, `|x_i − x_j|² ≥ 0` gives
# `x_i·x_i + x_j·x_j ≥ 2 x_i·x_j`, so at least one of the two scores itself
# above the other. With separate queries and keys neither holds.
#
# ### Exercise 2.2: `self_preference`
#
# Write `self_preference(S)` for a square grid `S` of shape `(n, n)` (n tokens
# scored against the same n tokens). Return a tuple of two Python floats:
#
# * `asymmetry`: the largest `|S[i, j] − S[j, i]|` over all pairs (0.0 when
#   `S` is symmetric);
# * `self_share`: the fraction of rows `i` whose own score `S[i, i]` is the
#   largest of row `i` (a tie with another entry still counts).
#
# Raise a `ValueError` when `S` is not a non-empty square 2-D grid. About 5 lines.

# %% solution id=self_preference
def self_preference(S):
    """How far a square score grid is from symmetric, and how often a token scores itself highest.

    S: (n, n) scores of n tokens against the same n tokens.
    Returns (asymmetry, self_share), two floats: max |S[i, j] - S[j, i]|, and the
    fraction of rows whose diagonal entry is the largest of the row (ties count).
    Raises ValueError when S is not a non-empty (n, n) grid.
    """
    ### BEGIN SOLUTION
    S = np.asarray(S)
    S = S if S.dtype.kind == "f" else S.astype(np.float64)  # integers in float64 (notebook 01's general rules)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"S must be a non-empty square (n, n) grid, got shape {S.shape}")
    asymmetry = float(np.abs(S - S.T).max())
    return asymmetry, float((np.diagonal(S) >= S.max(axis=1)).mean())
    ### END SOLUTION


# %% [markdown]
# Your measure on the four tokens, scored directly and through the two matrices:

# %% locked
with demonstration("self_preference"):
    direct, learned = self_preference(X @ X.T), self_preference(Q @ K.T)
    for name, (asymmetry, share) in (("X Xᵀ (direct)", direct), ("Q Kᵀ (learned)", learned)):
        print(f"{name:>15}: asymmetry {asymmetry:5.2f}, tokens scoring themselves highest {share:.0%}")

# %% [markdown]
# ## Why the scores are divided by √d_k (chapter section 3)
#
# Before the scores are used, every one is divided by the square root of the
# head size `d_k`, the count of numbers in one query. Here `d_k = 4`, so every
# score is halved.
#
# The reason is the size of a sum. Suppose the numbers of `q` and `k` are
# independent, with mean 0 and variance 1. Each product `q_m k_m` then has mean 0
# and variance 1, and `q·k` adds up `d_k` of them, so its variance is `d_k` and
# its typical size (standard deviation) is `√d_k`. Left alone, bigger heads give
# bigger scores; softmax turns big gaps between scores into one weight near 1 and
# the rest near 0, and through such a saturated softmax almost no gradient flows.
# Dividing by `√d_k` brings the variance back to 1 at every head size.
#
# ### Exercise 2.3: `scaled_scores`
#
# Write `scaled_scores(Q, K)`: the raw scores divided by `√d_k`, with `d_k` the
# last dimension of `Q`. Same shapes and errors as `raw_scores`. Keep float32
# float32: divide by `math.sqrt(d_k)`, a Python float, not by `np.sqrt(d_k)`,
# a float64 scalar. About 2 lines.

# %% solution id=scaled_scores
def scaled_scores(Q, K):
    """Q Kᵀ / √d_k: scores whose spread does not grow with the head size.

    Q: (..., n_q, d_k) queries; K: (..., n_k, d_k) keys.
    Returns (..., n_q, n_k), in the dtype of the inputs (integers give float64).
    Raises ValueError when Q and K are not (..., n, d_k) with one d_k.
    """
    ### BEGIN SOLUTION
    return raw_scores(Q, K) / math.sqrt(np.shape(Q)[-1])
    ### END SOLUTION


# %% locked
# The scaled grid, drawn from your scaled_scores: every gap is halved.
import figures

figures.score_grid(scaled_scores, scaled=True)

# %% [markdown]
# ### Exercise 2.4: `score_spread`
#
# Check the variance argument by simulation. Write
# `score_spread(d_k, n_samples, rng)`: draw `n_samples` random queries, **then**
# `n_samples` random keys, each with `rng.standard_normal((n_samples, d_k))`;
# pair query `s` with key `s` and take their dot product, giving `n_samples`
# scores. Return `(raw_std, scaled_std)` as two Python floats: the standard
# deviation of those scores (numpy's default, `ddof=0`) and of the same scores
# divided by `√d_k`. Draw in exactly that order and nothing else from `rng`,
# so that the same generator gives the same answer as the key. Raise a
# `ValueError` when `d_k` or `n_samples` is below 1. About 5 lines.

# %% solution id=score_spread
def score_spread(d_k, n_samples, rng):
    """Standard deviation of q·k for random unit-variance q and k, raw and scaled.

    d_k: head size; n_samples: how many (q, k) pairs; rng: a numpy Generator.
    Draws q then k, each ``rng.standard_normal((n_samples, d_k))``, and nothing else.
    Returns (raw_std, scaled_std) as Python floats, std with ddof=0, scaled = divided by √d_k.
    Raises ValueError when d_k or n_samples is below 1.
    """
    ### BEGIN SOLUTION
    for name, value in (("d_k", d_k), ("n_samples", n_samples)):  # notebook 01's rule for a count you are given
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    spread = float(np.sum(q * k, axis=1).std())
    return spread, spread / math.sqrt(d_k)
    ### END SOLUTION


# %% [markdown]
# Your `score_spread` at the chapter's five head sizes, 10,000 pairs each. The
# raw spread should follow `√d_k` and the scaled one should stay near 1. A
# simulation is noisy, so expect to differ from the chapter in the second
# decimal; the chapter gives the raw spread at the two ends only.

# %% locked
with demonstration("score_spread"):
    rows = [(d_k, *score_spread(d_k, 10_000, np.random.default_rng(3))) for d_k in (4, 16, 64, 256, 1024)]
    chapter = {4: "2.04 / 1.02", 1024: "31.85 / 1.00"}
    print("head size   raw spread    √d_k   scaled spread   chapter (raw / scaled)")
    for d_k, raw, scaled in rows:
        print(f"{d_k:>9}   {raw:>10.2f}  {math.sqrt(d_k):>6.2f}   {scaled:>13.2f}   {chapter.get(d_k, '     / 1.00')}")

# %% locked
# The table above as the chapter draws it, on log axes.
import figures

figures.score_spread(score_spread)

# %% [markdown]
# ### Exercise 2.5: `largest_weight`
#
# Now see what the growth does to the weights. Write
# `largest_weight(d_k, n_keys, scaled, n_trials, rng)`: for each of `n_trials`
# trials, one random query meets `n_keys` random keys of its own. Draw all the
# queries first, `rng.standard_normal((n_trials, d_k))`, **then** all the keys,
# `rng.standard_normal((n_trials, n_keys, d_k))`. Score each query against its
# own keys, divide the scores by `√d_k` when `scaled` is true, turn each trial's
# scores into softmax weights and keep the largest, the share of the winning
# key. Return the mean of those over the trials, as a Python float.
#
# You write softmax properly in notebook 03; here you only need its largest
# value, and once the row maximum `m` is taken out that is `1 / Σⱼ exp(sⱼ − m)`.
# Compute all trials at once (a batched matrix product or `np.einsum`), not in a
# loop. Raise a `ValueError` when `d_k`, `n_keys` or `n_trials` is below 1.
# About 7 lines.

# %% solution id=largest_weight
def largest_weight(d_k, n_keys, scaled, n_trials, rng):
    """Mean share of the winning key when one random query meets `n_keys` random keys.

    d_k: head size; n_keys: keys per query; scaled: divide the scores by √d_k;
    n_trials: how many queries; rng: a numpy Generator.
    Draws the queries ``rng.standard_normal((n_trials, d_k))`` then the keys
    ``rng.standard_normal((n_trials, n_keys, d_k))``, and nothing else.
    Returns the mean over trials of the largest softmax weight, as a Python float.
    Raises ValueError when d_k, n_keys or n_trials is below 1.
    """
    ### BEGIN SOLUTION
    for name, value in (("d_k", d_k), ("n_keys", n_keys), ("n_trials", n_trials)):  # notebook 01's rule
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    queries = rng.standard_normal((n_trials, d_k))
    keys = rng.standard_normal((n_trials, n_keys, d_k))
    s = (keys @ queries[:, :, None])[:, :, 0]
    if scaled:
        s = s / math.sqrt(d_k)
    # The winner scores the maximum, so after the shift its exponential is exactly 1.
    winner = 1.0 / np.exp(s - s.max(axis=1, keepdims=True)).sum(axis=1)
    return float(winner.mean())
    ### END SOLUTION


# %% [markdown]
# Your `largest_weight` with 64 keys per query, 200 trials per head size, once
# on raw scores and once on scaled ones. With 64 keys an even split would give
# each key 1/64 ≈ 0.016. Unscaled, the winner's share heads towards 1 as the
# head size grows, so a token's new vector ends up as little more than one other
# token's value, needed or not. Scaled, the share hardly moves. Again, expect
# noise in the second decimal.

# %% locked
with demonstration("largest_weight"):
    rows = [(d_k, largest_weight(d_k, 64, False, 200, np.random.default_rng(4)),
             largest_weight(d_k, 64, True, 200, np.random.default_rng(4)))
            for d_k in (4, 16, 64, 256, 1024)]
    chapter = {4: "0.293 / 0.11", 1024: "0.941 / 0.11"}
    print("head size   raw   scaled   chapter (raw / scaled)")
    for d_k, raw, scaled in rows:
        print(f"{d_k:>9}  {raw:.3f}   {scaled:.3f}   {chapter.get(d_k, '      / 0.11')}")

# %% locked
# The table above as a picture: raw scores against scaled ones.
import figures

figures.largest_weight(largest_weight)

# %% [markdown]
# ### Exercise 2.6: `softmax_jacobian`
#
# A weight near 1 does more harm than mixing in one value alone: it also stops
# training. In the chapter's words, once the softmax saturates "the gradient
# through softmax nearly vanishes". Training changes the scores by following
# how much each weight moves as a score moves, and for softmax that has a
# closed form. With p = softmax(s),
#
# $$\frac{\partial p_i}{\partial s_j} = p_i\,(\delta_{ij} - p_j),
# \qquad\text{the matrix } \operatorname{diag}(p) - p\,p^{\mathsf T}.$$
#
# Write `softmax_jacobian(s)`: `s` is `(..., n)`, the scores of a query against
# `n` keys, with any leading batch dimensions; return the `(..., n, n)` grid
# diag(p) − p pᵀ for every query of the batch. Compute p the stable way, as in
# `largest_weight`: take out the row's largest score before `np.exp`. A row
# whose every score is −inf (every key forbidden, as masks do in notebook 05)
# has weights of 0 and so a grid of zeros, never NaN. Float32 stays float32; integers are computed in float64. Raise a `ValueError`
# when `s` is a single number (0-d) rather than a row of scores. An outer
# product by broadcasting and `np.eye(n)` do it without a loop. About 5 lines.

# %% solution id=softmax_jacobian
def softmax_jacobian(s):
    """How softmax's weights move when its scores move: J[..., i, j] = ∂p_i / ∂s_j.

    s: (..., n) scores of one query against n keys (any leading batch).
    Returns (..., n, n) diag(p) − p pᵀ with p = softmax(s), in s's float dtype.
    Raises ValueError for a 0-d s.
    """
    ### BEGIN SOLUTION
    s = np.asarray(s)
    if s.ndim < 1:
        raise ValueError(f"s must be a row of scores (..., n), got shape {s.shape}")
    s = s if s.dtype.kind == "f" else s.astype(np.float64)
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(top), top, 0))
    total = e.sum(axis=-1, keepdims=True)
    p = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return p[..., :, None] * np.eye(s.shape[-1], dtype=s.dtype) - p[..., :, None] * p[..., None, :]
    ### END SOLUTION


# %% [markdown]
# Now the chapter's claim, measured with your function. The same draws as
# `largest_weight` (64 keys per query, 200 queries per head size), and for
# each query the size of its gradient grid, its Frobenius norm
# √(Σᵢⱼ Jᵢⱼ²), averaged. Unscaled, the size rises a little while the weights
# are still broad, then falls towards 0 as the head size grows: one weight
# takes nearly everything, nudging a score changes almost nothing, and
# training has almost nothing to follow. Scaled, it stays put at every head
# size.

# %% locked
with demonstration("softmax_jacobian"):
    print("head size   gradient size raw   scaled")
    for d_k in (4, 16, 64, 256, 1024):
        rng = np.random.default_rng(4)
        queries, keys = rng.standard_normal((200, d_k)), rng.standard_normal((200, 64, d_k))
        s = np.einsum("td,tkd->tk", queries, keys)
        raw, scaled = (np.linalg.norm(softmax_jacobian(t), axis=(-2, -1)).mean() for t in (s, s / math.sqrt(d_k)))
        print(f"{d_k:>9}   {raw:>17.3f}   {scaled:.3f}")

# %% [markdown]
# With the division, how peaked a pattern is becomes something training decides,
# not a side effect of the head size. Next, notebook 03 turns the scaled scores
# into weights and mixes the values.
