# %% [markdown]
# # Attention, part 5: self-attention, cross-attention and masks
#
# This notebook follows chapter section 6. Until now the queries, keys and
# values all came from the same four tokens. Here you see what changes once
# they come from two different sets, and you write the three masks that decide
# which pairs of tokens may meet at all: `causal_mask`, `padding_mask` and
# `block_mask`, with two measurements that test what the first two promise,
# `first_changed_output` and `padding_leak`, and a third, `source_shares`,
# that shows where a query's weight goes by the source of each key.
#
# The set-up cell loads **your** `softmax` and `attention` from notebook 03
# (and `project_qkv` from notebook 01), so
# the demonstrations below show your own attention at work. They print a
# placeholder until the functions they need are written.

# %% setup id=setup_05
import math

import numpy as np

from judge import NotStarted, check
from workbook import TOKENS, demonstration, my, pick_up_the_cube

X, W_q, W_k, W_v = pick_up_the_cube()
Q, K, V = X @ W_q, X @ W_k, X @ W_v
# `my` reads the SAVED notebook, not its open tab: after a change there, save it and re-run this cell.
softmax, attention = my("03_softmax_and_mix", "softmax", "attention")
project_qkv = my("01_worked_example", "project_qkv")

# %% [markdown]
# ## 1. Who asks and who answers (chapter section 6)
#
# In **self-attention** one set of tokens supplies the queries, the keys and
# the values, so every token reads the set it belongs to: four tokens give a
# 4 × 4 grid of weights. In **cross-attention** the queries come from one set
# and the keys and values from another: one group reads the other, and the
# other does not read back. Nothing in the arithmetic changes; only the shapes
# do. With `n_q` asking tokens and `n_k` answering ones the weight grid is
# `n_q × n_k`, square only when the two counts happen to agree.
#
# Below, two made-up tokens standing in for a robot's side of a model read the
# four words of "pick up the cube" through the same three matrices. They are
# not the chapter's robot tokens (the chapter does not print those vectors), so
# their weights differ from its: the chapter's first robot token puts 0.92 of
# its mixture on the first word, and the cell prints what this made-up one puts
# there. Only the shapes carry over.

# %% locked
robot_tokens = np.round(np.random.default_rng(6).normal(0, 0.9, (2, 4)), 1)
with demonstration("attention"):
    _, self_weights = attention(Q, K, V)
    cross_out, cross_weights = attention(robot_tokens @ W_q, K, V)
    print("self-attention : weights", self_weights.shape, "- 4 words ask, 4 words answer")
    print("cross-attention: weights", cross_weights.shape, "- 2 robot tokens ask, 4 words answer;",
          "output", cross_out.shape)
    print(" " * 9, " ".join(f"{t:>6}" for t in TOKENS))
    for i, row in enumerate(cross_weights):
        print(f"robot {i}: ", " ".join(f"{w:6.3f}" for w in row))
    print(f"The chapter's first robot token puts 0.92 on {TOKENS[0]!r}; this made-up one puts "
          f"{cross_weights[0, 0]:.3f} there: other vectors, other weights, the same 2 × 4 shape.")

# %% [markdown]
# ## 2. Masks: forbidding pairs with arithmetic (chapter section 6)
#
# A mask has the shape of the score grid and is **added** to the scores just
# before the softmax: 0 leaves a pair alone, −∞ forbids it. Since
# e^(−∞) = 0, a forbidden key gets a weight of exactly zero, and the softmax
# shares the whole weight among the keys that are left. Every mask in this
# notebook is a float64 array of 0.0 and `-np.inf`, ready to pass to your
# `attention(Q, K, V, mask)`.
#
# ### Exercise 5.1: `causal_mask`
#
# A token must not see the tokens that come after it. Write `causal_mask(n)`
# returning the `(n, n)` float64 mask whose entry `[i, j]` is −∞ when key `j`
# comes after query `i` (`j > i`) and 0 otherwise. Raise a `ValueError` when
# `n` is not a positive integer (a Python or NumPy int; `True` does not count).
# About 4 lines.

# %% solution id=causal_mask
def causal_mask(n):
    """Forbid each query from seeing the keys after it.

    n: the number of tokens, a positive integer.
    Returns (n, n) float64: 0 where j <= i, -inf where j > i.
    Raises ValueError when n is not a positive integer.
    """
    ### BEGIN SOLUTION
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    position = np.arange(n)
    later = position[None, :] > position[:, None]
    return np.where(later, -np.inf, 0.0)
    ### END SOLUTION


# %% [markdown]
# Here is your mask on the worked example. The first token can only read
# itself, so its row is a plain copy of its own value; the last token still
# reads all four.

# %% locked
with demonstration("causal_mask", "attention"):
    mask = causal_mask(4)
    _, weights = attention(Q, K, V, mask)
    print("mask\n", mask)
    for token, row in zip(TOKENS, weights):
        print(f"{token:>5}", " ".join(f"{w:.3f}" for w in row), f"  total {row.sum():.3f}")

# %% locked
# Your causal mask as a grid.
import figures

figures.causal_mask(causal_mask)

# %% [markdown]
# Why this matters for training (the short chapter's "The causal mask"): a
# model learning to predict the next token must not peek at it. With the mask
# the output at position `i` depends on tokens `0 … i` only, so the whole true
# sentence can go in as input at once and every position is trained on its own
# next token in a single forward pass, with no answer leaking from the right.
# Feeding the true tokens in this way is called **teacher forcing**.
#
# ### Exercise 5.2: `first_changed_output`
#
# The mask makes a promise: the output at position `i` depends on tokens
# `0 … i` only, so changing a later token never changes an earlier output.
# Test the promise rather than trust it. Write
# `first_changed_output(X, W_q, W_k, W_v, j, mask=None)`: `X` is `(n, d)`,
# the matrices are those of `project_qkv`, `j` is a position `0 ≤ j < n` and
# `mask` is passed on to `attention`. Run attention on `X`; then add 1.0 to
# every number of token `j` (on a copy: never change the caller's `X`) and
# run it again. Return, as a Python int, the smallest position `i` whose
# output row differs from before in any number (exact comparison: a
# forbidden pair contributes exactly nothing), or `n` when no row changed.
# Raise a `ValueError` when `j` is not an integer position of `X`. Use your
# `project_qkv` and `attention`. About 9 lines.

# %% solution id=first_changed_output
def first_changed_output(X, W_q, W_k, W_v, j, mask=None):
    """The first output position that changes when token j changes.

    X: (n, d) tokens; W_q, W_k, W_v: as for project_qkv; j: a position 0 <= j < n;
    mask: None or an additive mask for attention.
    Returns an int: the smallest i whose output row changes when 1.0 is added to
    every number of token j; n when no output changes.
    Raises ValueError when j is not an integer between 0 and n - 1.
    """
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < n:
        raise ValueError(f"j must be an integer position between 0 and {n - 1}, got {j!r}")
    changed = X.copy()
    changed[j] += 1.0
    before, _ = attention(*project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = attention(*project_qkv(changed, W_q, W_k, W_v), mask)
    rows = np.flatnonzero((before != after).any(axis=-1))
    return int(rows[0]) if rows.size else n
    ### END SOLUTION


# %% [markdown]
# Every token of the worked example changed in turn, with your causal mask
# and without a mask: with the mask, the first output to move is always the
# changed token's own.

# %% locked
with demonstration("first_changed_output", "causal_mask"):
    for j, token in enumerate(TOKENS):
        print(f"{token:>5} changed: first output to move with the mask {first_changed_output(X, W_q, W_k, W_v, j, causal_mask(4))},"
              f" without {first_changed_output(X, W_q, W_k, W_v, j)}")

# %% [markdown] written id=written_one_pass
# ### Written question 5.a: one pass, every position
#
# Exercise 5.2 tested the causal mask's promise on numbers: a change to token
# `j` moves no output before `j`. Numbers cannot say why that matters, so say
# it in words. In three to five sentences, explain why the mask lets a model
# learning to predict the next token be trained on every position of a
# sentence in a single forward pass. Say what each position is trained to
# predict, what the mask keeps from it, and what would go wrong without the
# mask. Write your answer in the cell below; it is graded by hand.
#
# ### BEGIN MARK SCHEME
# **Rubric**, 3 points (for graders; the release and the feedback leave it out):
#
# - **1 point**: position `i` is trained to predict the next token, `i + 1`, and the losses of all
#   positions come out of the same pass over the true sentence (teacher forcing). Look for: "next
#   token", "i + 1", "i+1", "following token", "teacher forcing"
# - **1 point**: with the mask, output `i` depends on tokens `0 … i` only: every key after `i` gets
#   a weight of exactly zero, so position `i` never sees its own target although the whole sentence
#   is in the input. Look for: "zero", "cannot see", "can't see", "never see", "not see", "after
#   it", "future", "later", "j > i"
# - **1 point**: without the mask, position `i` could read token `i + 1` and copy it: the target
#   leaks, the loss rewards copying rather than predicting, and the model fails when the next token
#   is not there (or every prefix would need a pass of its own). Look for: "copy", "leak", "cheat",
#   "peek"
#
# Model answer: each position `i` is asked for token `i + 1`. The mask gives every key after `i` a
# weight of exactly zero, so output `i` is computed from tokens `0 … i` alone, exactly as if the
# sentence stopped at `i`. So the whole true sentence can go in at once, and one pass gives every
# position's prediction and loss. Without the mask, position `i` could attend to token `i + 1` and
# copy it, a leak that teaches copying instead of prediction.
# ### END MARK SCHEME

# %% [markdown]
# ### Exercise 5.3: `padding_mask`
#
# Sentences of different lengths share one rectangular batch, and the short
# ones are filled up at the end with places that must never be read. Write
# `padding_mask(lengths, n)`: `lengths` is a 1-D integer array of `b` true
# lengths, each between 1 and `n`; return a float64 array of shape
# `(b, 1, n)` with −∞ at the key positions `j >= lengths[k]` of sequence `k`
# and 0 elsewhere. The middle axis of size 1 lets the same row serve every
# query of that sequence. Raise a `ValueError` when `n` is not a positive
# integer, when `lengths` is not a non-empty 1-D array of integers, or when a
# length is outside 1 … `n`. About 7 lines.

# %% solution id=padding_mask
def padding_mask(lengths, n):
    """Forbid the filler key positions at the end of each sequence.

    lengths: (b,) integers, each between 1 and n; n: the padded length.
    Returns (b, 1, n) float64: -inf at key positions j >= lengths[k], 0 elsewhere.
    Raises ValueError on a bad n or bad lengths.
    """
    ### BEGIN SOLUTION
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths must be a non-empty 1-D integer array, got shape {lengths.shape} "
                         f"and dtype {lengths.dtype}")
    if (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"each length must lie between 1 and n = {n}, got {lengths.tolist()}")
    real = np.arange(n)[None, :] < lengths[:, None]
    return np.where(real, 0.0, -np.inf)[:, None, :]
    ### END SOLUTION


# %% [markdown]
# The chapter treats "cube" as padding and works the row of "up" by hand:
# raise e to each masked score, add up, divide. The forbidden key contributes
# e^(−∞) = 0 to the total, so the other three weights still add up to one.

# %% locked
with demonstration("padding_mask", "attention"):
    mask = padding_mask(np.array([3]), 4)[0]   # (1, 4): one row for every query
    _, weights = attention(Q, K, V, mask)
    up = TOKENS.index("up")
    masked = Q[up] @ K.T / math.sqrt(K.shape[-1]) + mask[0]
    raised = np.exp(masked)
    show = lambda row: " ".join(f"{x:6.3f}" for x in row)  # noqa: E731
    print("masked scores of 'up':", show(masked))
    print("e to each score      :", show(raised), f"  total {raised.sum():.3f}")
    print("divided by the total :", show(raised / raised.sum()))
    print("your attention says  :", show(weights[up]))
    print("weight on 'cube' in every row:", show(weights[:, 3]))

# %% locked
# Your padding mask as a grid, one row per sentence.
import figures

figures.padding_mask(padding_mask)

# %% [markdown]
# ### Exercise 5.4: `padding_leak`
#
# The chapter's closing warning: a padding mask that is wrong in a quiet way
# raises no error. The model still trains, every row of weights still adds
# up to one, and only short inputs, the ones with padding, come out strange.
# The way to catch it is to measure what the mask is for. Write
# `padding_leak(weights, lengths)`: `weights` is `(b, n, n)`, the attention
# weights of a padded batch of `b` sequences, and `lengths` the `(b,)` true
# lengths (integers from 1 to `n`). For each sequence `k`, find the largest
# total weight that one of its real queries (`i < lengths[k]`) puts on its
# padding keys (`j ≥ lengths[k]`). Return those `b` numbers in weights' float
# dtype: all zeros when the mask is right. Padding queries do not count (their
# outputs are thrown away). Raise a `ValueError` when `weights` is not
# `(b, n, n)` or a length is not an integer from 1 to `n`. About 8 lines.

# %% solution id=padding_leak
def padding_leak(weights, lengths):
    """The largest weight a real query of each sequence puts on its padding.

    weights: (b, n, n) attention weights of a padded batch; lengths: (b,) ints from 1 to n.
    Returns (b,) in weights' float dtype: for sequence k, the largest total weight a
    query i < lengths[k] gives to the keys j >= lengths[k]; 0.0 without padding.
    Raises ValueError on bad shapes or lengths.
    """
    ### BEGIN SOLUTION
    weights, lengths = np.asarray(weights), np.asarray(lengths)
    weights = weights if weights.dtype.kind == "f" else weights.astype(np.float64)
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2]:
        raise ValueError(f"weights must be (b, n, n), got shape {weights.shape}")
    b, n, _ = weights.shape
    if lengths.shape != (b,) or lengths.dtype.kind not in "iu" or (lengths < 1).any() or (lengths > n).any():
        raise ValueError(f"lengths must be {b} integers from 1 to {n}, got {lengths!r}")
    position = np.arange(n)
    on_padding = np.where(position >= lengths[:, None, None], weights, 0).sum(axis=-1)
    return np.where(position < lengths[:, None], on_padding, 0).max(axis=-1).astype(weights.dtype)
    ### END SOLUTION


# %% [markdown]
# The quiet bug in numbers: a batch of the worked example padded to three
# lengths, with no mask, with a mask off by one, and with your padding mask.
# Every row of every grid adds up to one in all three; only the leak tells
# them apart, and it is worst for the shortest sentence.

# %% locked
lengths = np.array([4, 3, 2])
with demonstration("padding_mask", "attention", "padding_leak"):
    masks = {"no mask": None, "off by one": padding_mask(np.minimum(lengths + 1, 4), 4),
             "your padding mask": padding_mask(lengths, 4)}
    for name, mask in masks.items():
        _, weights = attention(np.stack([Q] * 3), np.stack([K] * 3), np.stack([V] * 3), mask)
        print(f"{name:>18}: row totals all 1: {np.allclose(weights.sum(-1), 1)};",
              "leak for lengths 4, 3, 2:", " ".join(f"{x:.3f}" for x in padding_leak(weights, lengths)))

# %% [markdown]
# ### Exercise 5.5: `block_mask`
#
# A robot model reads a mixed stream: picture tokens, then words, then joint
# readings, then action tokens, and a mask lays out which *kind* of token may
# read which. Write `block_mask(group_sizes, allowed)`. `group_sizes` is a
# 1-D integer array of the `g` group sizes, in the order the groups appear in
# the stream; `allowed` is a `(g, g)` boolean array where `allowed[a, b]` says
# whether tokens of group `a` may look at tokens of group `b`. Return the
# `(N, N)` float64 mask for all `N = sum(group_sizes)` tokens: 0 where the
# query's group may look at the key's group, −∞ where not. Raise a
# `ValueError` when `group_sizes` is not a non-empty 1-D array of positive
# integers, or `allowed` is not booleans of shape `(g, g)`. Do it without a
# loop over tokens: label every token with its group, then index. About 8 lines.

# %% solution id=block_mask
def block_mask(group_sizes, allowed):
    """The token-level mask of a stream made of groups.

    group_sizes: (g,) positive integers; allowed: (g, g) booleans, allowed[a, b]
    is True when group a may look at group b.
    Returns (N, N) float64 with N = sum(group_sizes): 0 where allowed, -inf where not.
    Raises ValueError on bad sizes or a bad allowed table.
    """
    ### BEGIN SOLUTION
    sizes, allowed = np.asarray(group_sizes), np.asarray(allowed)
    if sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or (sizes < 1).any():
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, "
                         f"got {sizes.tolist()}")
    g = sizes.size
    if allowed.dtype != bool or allowed.shape != (g, g):
        raise ValueError(f"allowed must be a ({g}, {g}) boolean array, got shape {allowed.shape} "
                         f"and dtype {allowed.dtype}")
    group_of = np.repeat(np.arange(g), sizes)
    return np.where(allowed[np.ix_(group_of, group_of)], 0.0, -np.inf)
    ### END SOLUTION


# %% [markdown]
# The chapter's robot stream has 256 picture tokens, 12 words, 1 joint-reading
# token and 8 action tokens. Pictures and words read each other, the joint
# token reads them and itself, and the actions read everything; nothing reads
# the actions except the actions. The joint token reading itself (joint →
# joint) is one allowed pair of its own: without it the count would be one
# short of the chapter's 74,309.

# %% locked
GROUPS = ("picture", "words", "joint", "actions")
SIZES = np.array([256, 12, 1, 8])
ALLOWED = np.array([
    # picture  words  joint  actions    <- may be looked at
    [True,     True,  False, False],  # picture asks
    [True,     True,  False, False],  # words ask
    [True,     True,  True,  False],  # joint asks
    [True,     True,  True,  True],   # actions ask
])
with demonstration("block_mask"):
    mask = block_mask(SIZES, ALLOWED)
    n_allowed = int(np.isfinite(mask).sum())
    print(f"{mask.shape[0]} tokens, {mask.size:,} pairs, {n_allowed:,} allowed ({n_allowed / mask.size:.1%})")
    starts = np.concatenate([[0], np.cumsum(SIZES)[:-1]])
    for name, row in zip(GROUPS, starts):
        seen = [other for other, col in zip(GROUPS, starts) if mask[row, col] == 0]
        print(f"{name:>8} may look at: {', '.join(seen)}")

# %% locked
# Your mask of the robot stream: all of it, and the last tokens up close.
import figures

figures.block_mask(block_mask)

# %% [markdown]
# ## 3. Where a token came from (the short chapter's "Security link")
#
# A model that reads a web page for its user holds its instructions (from
# the user and the system prompt) and the page's text in one sequence. Does
# attention weigh a token of the instructions otherwise than a token of the
# page? Measure it rather than guess: label every key with its source and add
# up where each query's weight goes. Written question 5.b then asks what the
# numbers mean.
#
# ### Exercise 5.6: `source_shares`
#
# Write `source_shares(weights, source, n_sources=None)`. `weights` holds
# attention weights of shape `(..., n_q, n_k)`: any leading batch axes, then
# one row per query and one column per key. `source` is a 1-D array of `n_k`
# integer ids, one per key. Id `source[j]` says where key `j` came from: say 0
# for the user and the system prompt, 1 for a web page, 2 for the model's own
# answer. There are `n_sources` sources, numbered 0 to `n_sources - 1`; when
# it is not given, take `source.max() + 1`. Return an array of shape
# `(..., n_q, n_sources)` whose entry `[..., i, s]` is the total weight query
# `i` gives to the keys from source `s`, divided by the total weight of row
# `i`, so each row adds up to 1 even when the weights given do not. A source
# with no key still gets its column, of zeros, and a row with no weight at
# all (a query whose every key is forbidden) gives zeros, not NaN. Float32
# weights give float32 shares. Raise a `ValueError` when `weights` has fewer
# than 2 axes, when `source` is not a 1-D integer array with one id per key,
# when an id is negative, or when `n_sources` is not a positive integer
# larger than every id. About 14 lines.

# %% solution id=source_shares
def source_shares(weights, source, n_sources=None):
    """How each query's weight divides among the sources of its keys.

    weights: (..., n_q, n_k) attention weights; source: (n_k,) integer ids from 0;
    n_sources: a positive integer larger than every id, or None for source.max() + 1.
    Returns (..., n_q, n_sources) in weights' float dtype: the weight query i gives the
    keys of source s, over row i's total; a row without weight gives zeros.
    Raises ValueError on bad weights, a bad source or a bad n_sources.
    """
    ### BEGIN SOLUTION
    weights, source = np.asarray(weights), np.asarray(source)
    weights = weights if weights.dtype.kind == "f" else weights.astype(np.float64)
    if weights.ndim < 2:
        raise ValueError(f"weights must be (..., n_q, n_k), got shape {weights.shape}")
    n_k = weights.shape[-1]
    if source.ndim != 1 or source.dtype.kind not in "iu" or source.shape[0] != n_k:
        raise ValueError(f"source must be a 1-D integer array of {n_k} ids, one per key, got {source!r}")
    if (source < 0).any():
        raise ValueError(f"source ids must be 0 or more, got {source.tolist()}")
    n_sources = int(source.max()) + 1 if n_sources is None else n_sources
    if isinstance(n_sources, bool) or not isinstance(n_sources, (int, np.integer)) or n_sources <= source.max():
        raise ValueError(f"n_sources must be an integer larger than every id, got {n_sources!r}")
    from_source = (source[:, None] == np.arange(n_sources)[None, :]).astype(weights.dtype)
    summed = weights @ from_source
    total = weights.sum(axis=-1, keepdims=True)
    return np.divide(summed, total, out=np.zeros_like(summed), where=total > 0)
    ### END SOLUTION


# %% [markdown]
# Ten made-up tokens of width 4, through the worked example's matrices: four
# of instructions, four of a web page, then two of the model's answer, under
# the causal mask. The sixth token, on the page, is a copy of the second, an
# instruction.
#
# The cell first shows that attention has no place for a "trusted" flag: a
# layer's weights come from the token vectors and the mask alone, so your
# `project_qkv` gives the copy on the page the same key as the instruction it
# copies, and your `attention` has every query score the two alike. Then it shows where the two answer tokens look, by source. Last, it adds a
# mask made by your `block_mask` from a table saying that the answer may read
# the instructions and itself but not the page.

# %% locked
ORIGINS = ("instructions", "web page", "answer")
SOURCE = np.repeat([0, 1, 2], [4, 4, 2])
tokens = np.round(np.random.default_rng(1).normal(0, 0.9, (10, 4)), 1)
tokens[5] = tokens[1]  # a sentence of the instructions, copied onto the page
with demonstration("project_qkv", "source_shares", "attention", "causal_mask", "block_mask"):
    def weights_of(vectors, mask):
        """The weights of one attention layer over the tokens: all it is given is their vectors and the mask."""
        return attention(*project_qkv(vectors, W_q, W_k, W_v), mask)[1]

    causal = causal_mask(10)
    page_untrusted = weights_of(tokens, causal)
    keys = project_qkv(tokens, W_q, W_k, W_v)[1]
    print("the instruction's key and its copy's on the page: largest difference", np.abs(keys[1] - keys[5]).max())
    print("answer token 0 weighs the instruction and its copy on the page:",
          page_untrusted[8, 1], "and", page_untrusted[8, 5])
    ALLOWED_READS = np.array([
        # instructions  web page  answer    <- may be looked at
        [True,          False,    False],   # instructions ask
        [True,          True,     False],   # web page asks
        [True,          False,    True],    # answer asks
    ])
    blocked = weights_of(tokens, causal + block_mask(np.array([4, 4, 2]), ALLOWED_READS))
    for name, weights in (("causal mask only", page_untrusted), ("causal + block mask", blocked)):
        shares = source_shares(weights, SOURCE, 3)
        for i in (8, 9):
            print(f"{name:>19}, answer token {i - 8}:",
                  ", ".join(f"{origin} {share:.3f}" for origin, share in zip(ORIGINS, shares[i])))

# %% [markdown]
# Read the lines against each other before the written question below: what
# sets a copy's key apart from its original, how the copy's weight compares with the weight of the
# instruction it copies, how the answer's weight divides between the
# instructions and the page, and what is left of the page's share once the
# block mask is added.

# %% [markdown] written id=written_injection
# ### Written question 5.b: attention and prompt injection
#
# The robot's mask says which kind of token may read which because someone
# wrote the table `ALLOWED`, and the demonstration above needed a table of
# its own, `ALLOWED_READS`. A language model that reads a web page for its
# user gets no such table by itself: its instructions and the page's text
# arrive as one sequence of tokens. In three to five sentences: how does attention treat a
# token of the instructions and a token of the page, why does that leave room
# for prompt injection (text on the page that the model follows as if it were
# an instruction), and what could a mask like `block_mask` do about it, and
# what not? Write your answer in the cell below; it is graded by hand.
#
# ### BEGIN MARK SCHEME
# **Rubric**, 3 points (for graders; the release and the feedback leave it out):
#
# - **1 point**: attention has no notion of where a token came from or whom to trust: tokens of the
#   instructions and of the page are keys and values of the same sequence, and a query weighs each
#   by how well it matches, nothing else. Look for: "same sequence", "no notion", "no idea",
#   "trust", "same way", "just tokens", "where a token came from", "match"
# - **1 point**: so page text that reads like an instruction can win weight and steer the output as
#   a real instruction would: that is prompt injection; any preference for the real instructions is
#   something the model learned statistically, not a rule of the arithmetic. Look for: "inject",
#   "learned", "statistic", "override", "obey", "follow", "steer"
# - **1 point**: a mask works only on positions: it could stop some tokens from reading the page at
#   all, but whatever must use the page still reads all of it, and no mask can tell a harmless
#   sentence of the page from a harmful one by its content, so the defence must come from elsewhere
#   (training, keeping untrusted input away from actions). Look for: "position", "content", "cannot
#   tell", "can't tell", "still read", "must read", "has to read"
#
# Model answer: to attention, a token of the system prompt and a token of the page are both keys and
# values of one sequence; a query gives each the weight its match earns, with no notion of source or
# trust. Page text written to look like an instruction can therefore draw the weight an instruction
# would and steer what the model does: prompt injection. Whatever preference the model has for its
# real instructions was learned from data, not enforced. A block mask can forbid positions, for
# example keep the page from some tokens, but the answer must read the page to use it, and a mask
# sees positions, not content, so it cannot sort a harmful sentence from a harmless one.
# ### END MARK SCHEME

# %% [markdown]
# Applying a mask costs one addition per score, yet it decides what the model
# can ever learn: a forbidden pair passes nothing at all. Section 7 turns to
# the other side of that grid: what holding and filling it costs
# (notebooks 06 and 07).
