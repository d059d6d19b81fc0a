# %% [markdown]
# # Attention, part 9: the Model Explorer, with your own attention
#
# The chapter asks whether heads really learn different jobs: in its small
# model, trained on a toy grammar, one head mostly reads the token itself while
# others read the previous token, the start token or spread over earlier
# words, and an **induction head** in "… A B … A" looks from the second A at
# B, the token after the first A. This notebook runs a model of that kind,
# trained by the kit, with **the attention you wrote**, and asks you to tell
# its heads apart with code: which of those jobs did training really make?
#
# The model: 2 layers of 4 heads, width 64, a context of 32 tokens, trained by
# the kit on sentences such as "the cat sat on the mat ." and on spans of
# random words written twice or more. Its weights are in `model_weights.npz`;
# `explorer_model.py` runs it in NumPy, except for the attention, which it
# takes from you:
#
# | your function | from notebook |
# |---|---|
# | `scaled_scores` | 02 |
# | `softmax` | 03 |
# | `split_heads`, `multi_head_attention` | 04 |
# | `causal_mask` | 05 |
#
# The pictures below appear once those are written; the exercises of
# section 2 need only NumPy. Those of sections 4 and 5 run on your
# `attention` (notebook 03) and your `split_heads` and `merge_heads`
# (notebook 04) as well.

# %% setup id=setup_09
import numpy as np

from judge import NotStarted, check

# %% locked
import explorer_model
import figures
from workbook import demonstration, my, your_attention

# Your own attention, from the answer cells of notebooks 02 to 05, read from the SAVED notebooks, not their
# open tabs: after a change there, save it and re-run this cell.
yours = your_attention()
# The pieces the exercises of sections 4 and 5 are built on, from the same saved notebooks.
attention = my("03_softmax_and_mix", "attention")
split_heads, merge_heads = my("04_heads", "split_heads", "merge_heads")
# The names of the functions of yours the model calls, and the attention your multi_head_attention runs on.
PIECES = (*explorer_model.Pieces._fields, "attention")
trained = explorer_model.load("model_weights.npz")
# Random weights of the same shapes: exactly where training started.
untrained = explorer_model.random_weights(trained.seed, trained.vocab)
print(f"{len(trained.loss)} training steps: loss {trained.loss[:50].mean():.2f} at the start, "
      f"{trained.loss[-50:].mean():.2f} at the end")
print("words it knows:", " ".join(trained.vocab[1:]))

# %% [markdown]
# ## 1. Every head of the model, on a prompt of your choice (chapter section 5)
#
# Write a prompt with the words above, separated by spaces (the start token
# `<s>` is put in front for you). A prompt that repeats part of itself, like
# the one given, lets an induction head show itself.

# %%
prompt = "the cat sat on the mat . the cat sat on the mat"

# %% locked
def run(model, prompt):
    """The model's forward pass on `prompt` with your attention, or None (and why) if it cannot run yet."""
    tokens = explorer_model.tokenize(prompt, model.vocab)
    with demonstration(*PIECES):  # a stub, or which of yours stopped the model
        return explorer_model.forward(model, tokens, yours)
    return None


def draw(result, model, title):
    """Every head's weight grid, each weight written on it: row i is where token i looks, column j the token it
    looks at."""
    if result is not None:
        figures.every_head(result.weights, [model.vocab[t] for t in result.tokens], title)


trained_run = run(trained, prompt)
draw(trained_run, trained, f"trained weights: {prompt!r}")

# %% [markdown]
# The same cells with the random weights training started from. Every grid is
# nearly uniform: row i spreads its weight evenly over the i + 1 tokens it may
# see. All the structure above was learned.

# %% locked
untrained_run = run(untrained, prompt)
draw(untrained_run, untrained, f"random weights: {prompt!r}")

# %% [markdown]
# ## 2. Telling heads apart with numbers
#
# Looking at pictures is a start; to find heads in a model with thousands of
# them you need numbers. Each measure below takes one head's weight grid `A`,
# shape `(n, n)`, where row `i` is where token `i` looks (each row adds up to
# one, nothing above the diagonal), and averages over the rows `1 … n−1`.
# Row 0 is left out: the start token can only look at itself, so it would
# count for every kind of head at once.
#
# Each measure returns one number: a Python `float`, a NumPy scalar or an
# array of shape `()` (notebook 01's rule for a number answer). The checks
# compare with the policy of notebook 01: within `1.5e-8 · max(1, |expected|)`.
#
# ### Exercise 9.1: `self_score`, `previous_score`, `start_score`
#
# * `self_score(A)`: the mean of `A[i, i]`, how much a token reads itself;
# * `previous_score(A)`: the mean of `A[i, i−1]`, how much it reads the token just before;
# * `start_score(A)`: the mean of `A[i, 0]`, how much it reads the start token.
#
# All three over `i = 1 … n−1`. About 1 line each (`np.diagonal` takes an `offset`).

# %% solution id=self_score
def self_score(A):
    """Mean weight of a token on itself.

    A: (n, n) one head's weights, n ≥ 2. Returns the mean of A[i, i] over i = 1 … n−1, a float.
    """
    ### BEGIN SOLUTION
    return float(np.diagonal(np.asarray(A))[1:].mean())
    ### END SOLUTION


# %% solution id=previous_score
def previous_score(A):
    """Mean weight of a token on the token just before it.

    A: (n, n) one head's weights, n ≥ 2. Returns the mean of A[i, i−1] over i = 1 … n−1, a float.
    """
    ### BEGIN SOLUTION
    return float(np.diagonal(np.asarray(A), offset=-1).mean())
    ### END SOLUTION


# %% solution id=start_score
def start_score(A):
    """Mean weight of a token on the start token (column 0).

    A: (n, n) one head's weights, n ≥ 2. Returns the mean of A[i, 0] over i = 1 … n−1, a float.
    """
    ### BEGIN SOLUTION
    return float(np.asarray(A)[1:, 0].mean())
    ### END SOLUTION


# %% [markdown]
# ### Exercise 9.2: `induction_score`
#
# In "… A B … A", an induction head looks from the second A at B: the token
# *after* an earlier copy of the current token. For a query row `i`, the
# **targets** are the columns `t` with `1 ≤ t < i` whose previous token is the
# token at `i`: `tokens[t − 1] == tokens[i]`. (`t = i` is left out: that would
# be the token itself.) A row with at least one target counts; its score is the
# total weight on its targets. `induction_score(A, tokens)` is the mean of the
# counted rows' scores, or `0.0` when no row has a target.
#
# For `tokens` = `<s> x y x y` (ids `0 5 6 5 6`): row 3 (the second x) targets
# column 2 (y, the token after the first x), row 4 (the second y) targets
# column 3 (the x after the first y), and rows 1 and 2 have no target.
# Build a boolean `(n, n)` grid of targets with one comparison of `tokens`
# against itself, then take only the part below the diagonal. About 6 lines.

# %% solution id=induction_score
def induction_score(A, tokens):
    """Mean weight a repeated token puts on the tokens that followed its earlier copies.

    A: (n, n) one head's weights; tokens: (n,) int, the token ids the head read.
    Returns a float: over the rows i with a target t (1 ≤ t < i, tokens[t − 1] == tokens[i]),
    the mean of the row's total weight on its targets; 0.0 when no row has one.
    """
    ### BEGIN SOLUTION
    A, tokens = np.asarray(A), np.asarray(tokens)
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    targets[:, 1:] = tokens[:, None] == tokens[None, :-1]
    targets &= np.tril(np.ones((n, n), dtype=bool), k=-1)
    rows = targets.any(axis=1)
    return float((A * targets).sum(axis=1)[rows].mean()) if rows.any() else 0.0
    ### END SOLUTION


# %% [markdown]
# ### Exercise 9.3: `classify_head`
#
# Put the four measures together. `classify_head(A, tokens)` computes the
# scores in this order: self, previous, start, induction. If the largest is at
# least 0.5, it returns that kind's name: `"self"`, `"previous"`, `"start"` or
# `"induction"` (on a tie, the first in that order); otherwise `"spread"`: the
# head spreads its attention over several tokens. Two kinds can both reach 0.5
# (the token before can be an induction target too): the largest wins, not the
# first past 0.5. Return a plain Python `str`.
# Use your four measures, `self_score(A)` … `induction_score(A, tokens)`: while
# `classify_head` is graded, the reference's measures stand in for yours, so a
# mistake in a measure costs that measure's points only. About 4 lines.

# %% solution id=classify_head
def classify_head(A, tokens):
    """What one head attends to.

    A: (n, n) one head's weights; tokens: (n,) int.
    Returns "self", "previous", "start" or "induction" (the largest score, if at least 0.5), else "spread".
    """
    ### BEGIN SOLUTION
    kinds = ("self", "previous", "start", "induction")
    scores = [self_score(A), previous_score(A), start_score(A), induction_score(A, tokens)]
    best = int(np.argmax(scores))
    return kinds[best] if scores[best] >= 0.5 else "spread"
    ### END SOLUTION


# %% [markdown]
# ### Exercise 9.4: `copy_score`
#
# Looking at B is half of what an induction head does; the chapter says it
# also *copies* B: at the second A, the model predicts B as the next token.
# The model's output shows whether it does. Its **logits** are an `(n, V)`
# grid: row `i` holds a score for every word of the vocabulary as the token
# after position `i`, and the highest score is the model's guess.
#
# Write `copy_score(logits, tokens)`. Use the rows `i` that have at least one
# induction target, with the same targets as `induction_score`
# (`1 ≤ t < i`, `tokens[t − 1] == tokens[i]`). A row is a copy when its
# highest logit is the id of the token at one of its targets, `tokens[t]`.
# Return the fraction of those rows that are copies as a Python float, or
# `0.0` when no row has a target. About 7 lines.

# %% solution id=copy_score
def copy_score(logits, tokens):
    """How often the model predicts the token that followed an earlier copy of the current one.

    logits: (n, V) the model's score of every next word at every position; tokens: (n,) int.
    Returns a float: over the rows i with an induction target, the fraction whose highest
    logit is tokens[t] for one of its targets t; 0.0 when no row has a target.
    """
    ### BEGIN SOLUTION
    tokens = np.asarray(tokens)
    n = len(tokens)
    targets = np.zeros((n, n), dtype=bool)
    targets[:, 1:] = tokens[:, None] == tokens[None, :-1]
    targets &= np.tril(np.ones((n, n), dtype=bool), k=-1)
    rows = np.flatnonzero(targets.any(axis=1))
    if rows.size == 0:
        return 0.0
    guess = np.asarray(logits).argmax(axis=1)
    return float(np.mean([guess[i] in tokens[targets[i]] for i in rows]))
    ### END SOLUTION


# %% [markdown]
# Looking and copying, side by side, on spans of random words written twice
# (the model never saw these spans): the best induction score of layer 1 and
# how often the model's guess is the copy.

# %% locked
rng = np.random.default_rng(11)
spans = [rng.choice(np.arange(1, len(trained.vocab)), size=10, replace=False) for _ in range(10)]
with demonstration(*PIECES, "induction_score", "copy_score"):
    for model, name in ((trained, "trained"), (untrained, "random ")):
        looks, copies = [], []
        for span in spans:
            result = explorer_model.forward(model, np.concatenate([[0], span, span]), yours)
            looks.append(max(induction_score(A, result.tokens) for A in result.weights[1]))
            copies.append(copy_score(result.logits, result.tokens))
        print(f"{name}: layer 1's best induction score {np.mean(looks):.2f}, copy score {np.mean(copies):.2f}")

# %% [markdown]
# ## 3. What training made
#
# Your measures on every head of your prompt, trained against random weights:

# %% locked
def head_table(result, title):
    if result is None:
        return
    print(title)
    print("              self  previous  start  induction   kind")
    with demonstration("self_score", "previous_score", "start_score", "induction_score", "classify_head"):
        for layer, grids in enumerate(result.weights):
            for head, A in enumerate(grids):
                scores = [self_score(A), previous_score(A), start_score(A), induction_score(A, result.tokens)]
                print(f"layer {layer} head {head} " + "".join(f"{s:8.2f}" for s in scores)
                      + f"   {classify_head(A, result.tokens)}")


head_table(trained_run, f"trained weights on {prompt!r}")
head_table(untrained_run, "random weights, the same prompt")

# %% [markdown]
# One prompt can mislead. A fairer test of induction, the kit's own, uses
# sequences the model never saw: a span of random words written twice.
# Averaged over 20 of them, every head's induction score, trained against random:

# %% locked
rng = np.random.default_rng(9)
spans = [rng.choice(np.arange(1, len(trained.vocab)), size=10, replace=False) for _ in range(20)]
repeats = [" ".join(trained.vocab[t] for t in np.concatenate([span, span])) for span in spans]
with demonstration(*PIECES, "induction_score"):
    for model, name in ((trained, "trained"), (untrained, "random ")):
        results = [explorer_model.forward(model, explorer_model.tokenize(text, model.vocab), yours)
                   for text in repeats]
        means = np.mean([[[induction_score(A, r.tokens) for A in layer] for layer in r.weights]
                         for r in results], axis=0)
        print(f"{name} induction scores, layer by layer:", np.array2string(means, precision=2))

# %% [markdown]
# The same model, with the same attention of yours, is in the **Model
# Explorer** page, where you can type prompts, flip between trained and random
# weights, and see every head's scores, mask and weights side by side. In a
# terminal, in this folder (the one you fetched, beside this notebook), run
# `python explorer.py` and open the address it prints (http://127.0.0.1:8765/;
# `python explorer.py --port 0` picks any free port). It runs on your machine
# only, with no network, and labels each head with your `classify_head`.

# %% [markdown]
# ## 4. One pass computes every position (the chapter's causal mask)
#
# The chapter's reason for the causal mask: it lets one forward pass compute
# the loss of every position of a sentence at once. Position `i` cannot see
# the tokens after it, so its output, with the true sentence fed in from end
# to end, is the output it would have had if the sentence stopped at `i`.
# Feeding the true tokens in like this, each position predicting the next, is
# teacher forcing. Notebook 05 showed that a later token moves no earlier
# output; here you compare the one pass with the passes it stands in for.
#
# ### Exercise 9.5: `prefix_gaps`
#
# Write `prefix_gaps(Q, K, V, mask)`. `Q` and `K` are `(n, d_k)`, `V` is
# `(n, d_v)` and `mask` is an additive `(n, n)` mask (0 allows a pair, −∞
# forbids it). Run attention once on all `n` tokens with `mask`. Then, for
# each position `i`, run it again on the first `i + 1` tokens alone: the
# first `i + 1` rows of `Q`, `K` and `V`, with the mask cut to its top-left
# `(i + 1) × (i + 1)` corner. The gap at `i` is the largest absolute
# difference between row `i` of the first run's output and the last row of
# the second's. Return the `n` gaps as an array of shape `(n,)`, in the dtype
# of attention's output (float32 for float32 inputs). Raise a `ValueError`
# when `Q`, `K`, `V` and `mask` are not of those shapes for one `n`. Use your
# `attention(Q, K, V, mask)`. About 8 lines.

# %% solution id=prefix_gaps
def prefix_gaps(Q, K, V, mask):
    """How far each position's output is from the output it gets on its prefix alone.

    Q, K: (n, d_k); V: (n, d_v); mask: (n, n) additive.
    Returns (n,): gap i is the largest |difference| between row i of attention on all n
    tokens and the last row of attention on the first i + 1 (the mask cut to them).
    Raises ValueError when the shapes do not fit.
    """
    ### BEGIN SOLUTION
    Q, K, V, mask = (np.asarray(a) for a in (Q, K, V, mask))
    n = len(Q)
    if Q.ndim != 2 or K.shape != Q.shape or V.ndim != 2 or len(V) != n or mask.shape != (n, n):
        raise ValueError(f"expected Q, K (n, d_k), V (n, d_v), mask (n, n); got {Q.shape}, {K.shape}, "
                         f"{V.shape}, {mask.shape}")
    whole, _ = attention(Q, K, V, mask)
    gaps = np.zeros(n, dtype=whole.dtype)
    for i in range(n):
        alone, _ = attention(Q[:i + 1], K[:i + 1], V[:i + 1], mask[:i + 1, :i + 1])
        gaps[i] = np.abs(whole[i] - alone[-1]).max()
    return gaps
    ### END SOLUTION


# %% [markdown]
# The chapter's claim on the whole model: its logits from one pass over your
# prompt against those of a separate pass over each prefix, with your causal
# mask and with the mask taken away (a mask of zeros); under each, your
# `prefix_gaps` on one head of the model (layer 0, head 0) with the same mask.
# The model's weights are float32, so "the same" means the same up to float32
# rounding, about 1e-6 on logits near 10.

# %% locked
tokens = explorer_model.tokenize(prompt, trained.vocab)
no_mask = yours._replace(causal_mask=lambda n: np.zeros((n, n)))
p = trained.params
with demonstration(*PIECES, "prefix_gaps"):
    for name, pieces in (("your causal mask", yours), ("no mask", no_mask)):
        one_pass = explorer_model.forward(trained, tokens, pieces)
        gaps = [np.abs(one_pass.logits[i] - explorer_model.forward(trained, tokens[:i + 1], pieces).logits[-1]).max()
                for i in range(len(tokens))]
        print(f"{name}: the model's logit gap at each position", " ".join(f"{g:.0e}" for g in gaps))
        h = explorer_model.layer_norm(p["embed"][tokens] + p["position"][:len(tokens)], p["layer0.norm1.gain"],
                                      p["layer0.norm1.bias"])
        Q, K, V = (split_heads(h @ p[f"layer0.{W}"], explorer_model.HEADS)[0] for W in ("W_q", "W_k", "W_v"))
        print(f"{' ' * len(name)}  layer 0 head 0 alone, your prefix_gaps: largest gap "
              f"{prefix_gaps(Q, K, V, one_pass.mask).max():.0e}")

# %% [markdown]
# ## 5. What a head does, found by taking it out
#
# Section 3 sorted the heads by where they look. Where a head looks does not
# yet say what the model needs it for: two heads can look alike while only one
# of them matters. Interpretability courses (ARENA's among them) test a head
# directly: take it out, run the model again, and measure what the model can
# no longer do. The task measured here is the chapter's copying in
# "… A B … A", with your `copy_score`.
#
# ### Exercise 9.6: `ablate_head`
#
# Write `ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None)`: the
# multi-head attention of notebook 04 with one head taken out. `X` is
# `(n, d)`; `W_q`, `W_k` and `W_v` are `(d, d_h)` with `d_h` divisible by
# `n_heads`; `W_o` is `(d_h, d_out)`; `mask` is an additive `(n, n)` mask or
# `None`. Compute the queries, keys and values, cut each into `n_heads` heads
# and run attention on all the heads together. Then set the output of head
# number `head` to zero, every row of it, before the heads are joined and
# multiplied by `W_o`; the other heads are left as they were. Return the
# `(n, d_out)` result, float32 for float32 inputs. Raise a `ValueError` when
# `head` is not an integer from 0 to `n_heads − 1`. Use your
# `split_heads(M, n_heads)`, `attention(Q, K, V, mask)` and `merge_heads(H)`.
# About 7 lines.

# %% solution id=ablate_head
def ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None):
    """Multi-head attention with head `head` taken out: its output zeroed before W_o.

    X: (n, d); W_q, W_k, W_v: (d, d_h); W_o: (d_h, d_out); mask: None or (n, n) additive.
    Returns (n, d_out). Raises ValueError when head is not an integer from 0 to n_heads − 1.
    """
    ### BEGIN SOLUTION
    if isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads:
        raise ValueError(f"head must be an integer from 0 to {n_heads - 1}, got {head!r}")
    # Integers are computed in float64 (notebook 01's general rules); float32 stays float32.
    X, W_q, W_k, W_v, W_o = (a if a.dtype.kind == "f" else a.astype(np.float64)
                             for a in map(np.asarray, (X, W_q, W_k, W_v, W_o)))
    heads, _ = attention(split_heads(X @ W_q, n_heads), split_heads(X @ W_k, n_heads),
                         split_heads(X @ W_v, n_heads), mask)
    heads[head] = 0
    joined = merge_heads(heads)
    return joined @ W_o.astype(joined.dtype, copy=False)
    ### END SOLUTION


# %% [markdown]
# The copy score of the model on the 20 spans of section 3 (written twice),
# with every head in place, then with one head taken out at a time: your
# `ablate_head` stands in for the attention of that one layer. Read the
# numbers against section 3's table of kinds: which head's removal costs the
# copying most, and do two heads that look alike cost the same?

# %% locked
rng = np.random.default_rng(9)  # the 20 spans of section 3
spans = [rng.choice(np.arange(1, len(trained.vocab)), size=10, replace=False) for _ in range(20)]
sequences = [np.concatenate([[0], span, span]) for span in spans]


def removing(head):
    """A layer's attention with `head` taken out, by your ablate_head."""
    return lambda X, W_q, W_k, W_v, W_o, n_heads, mask=None: ablate_head(X, W_q, W_k, W_v, W_o, n_heads, head, mask)


def copying(replaced=None):
    """The mean copy score over the spans, with `replaced` layers' attention (None: every head in place)."""
    return np.mean([copy_score(explorer_model.forward(trained, tokens, yours, replaced).logits, tokens)
                    for tokens in sequences])


with demonstration(*PIECES, "ablate_head", "copy_score"):
    print(f"every head in place: copy score {copying():.2f}")
    for layer in range(explorer_model.LAYERS):
        print(f"layer {layer}, one head out:",
              "   ".join(f"head {head} {copying({layer: removing(head)}):.2f}" for head in range(explorer_model.HEADS)))
