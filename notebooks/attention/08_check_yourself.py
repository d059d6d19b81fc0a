# %% [markdown]
# # Attention, part 8: check yourself
#
# The short version of the chapter ends with a few "Check yourself" questions
# and opens with a list of what you should be able to do to skip it. This
# notebook asks all of them, in a form a grader can mark:
#
# * a **choice**: set a variable to the lower-case letter of the one right
#   option, for example `ANSWER = "b"`;
# * a **count**: set a variable to an exact Python `int`;
# * a **property**: write a short function whose output shows the answer.
#
# The cell under each question checks only the *form* of your answer (a letter
# that was offered, an integer, an array of the right shape). Whether it is
# right is marked when your work is graded, so think before you answer:
# a form that passes here says nothing about the answer itself.

# %% setup id=setup_08
import math

import numpy as np

from judge import NotStarted, check, check_answer_form

# %% [markdown]
# ## Check yourself
#
# ### Question 1: a convex combination
#
# Each output row of attention is a *convex combination* of the value rows its
# token may see: a weighted sum whose weights are never negative and add up to
# one (chapter section 4). What does that say about what a single attention
# step can produce for a token?
#
# * **a.** Any vector at all: the weights are learned, so the right weights
#   can send the output in any direction.
# * **b.** Exactly one of the value rows, because the softmax always hands the
#   whole weight to the single highest score.
# * **c.** Only a vector inside the region spanned "between" the visible value
#   rows (their convex hull): attention selects and blends, and anything new
#   has to come from the matrices `W_V`, `W_O` and the layers around it.
# * **d.** A vector of length exactly 1, because the weights add up to one.
#
# Set `CONVEX_COMBINATION` to your letter.

# %% solution id=convex_combination
# Replace `raise NotStarted()` below with CONVEX_COMBINATION = "<letter>", one lower-case letter.
### BEGIN SOLUTION
CONVEX_COMBINATION = "c"
### END SOLUTION

# %% tests id=hidden_convex_combination
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("CONVEX_COMBINATION", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("convex_combination", CONVEX_COMBINATION)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 2: all scores equal
#
# Suppose every score in one row of the grid is the same number. What does
# attention output for that query (chapter section 4)? Answer with a function:
# `equal_scores_output(V)` takes the value rows the query may see,
# `V` of shape `(..., n_k, d_v)`, and returns what attention outputs for that
# query, shape `(..., d_v)`. Keep the dtype of float input (float32 in,
# float32 out). About 2 lines.

# %% solution id=equal_scores
def equal_scores_output(V):
    """Attention's output for a query whose scores over V's rows are all equal.

    V: (..., n_k, d_v) the value rows the query may see.
    Returns (..., d_v), in V's float dtype.
    """
    ### BEGIN SOLUTION
    V = np.asarray(V)
    return V.sum(axis=-2) / V.shape[-2]
    ### END SOLUTION


# %% tests id=hidden_equal_scores
# Form only: an array of shape (..., d_v). The values are marked when your work is graded.
func = globals().get("equal_scores_output")
if func is None:
    raise AssertionError("equal_scores is not answered yet: run the cell that defines equal_scores_output.")
for shape, wanted in (((5, 3), (3,)), ((2, 5, 3), (2, 3))):
    try:
        result = func(np.random.default_rng(0).standard_normal(shape))
    except NotImplementedError:
        raise AssertionError("equal_scores is not answered yet: write equal_scores_output above and run it.") from None
    if type(result) is not np.ndarray or result.shape != wanted:
        got = f"shape {result.shape}" if type(result) is np.ndarray else type(result).__name__
        raise AssertionError(f"equal_scores_output on V of shape {shape} must return a numpy array of "
                             f"shape {wanted}, got {got}")
print("✓ equal_scores_output returns one row of width d_v per batch entry")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("equal_scores", equal_scores_output)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 3: one pass, every position
#
# When a model is trained to predict the next token, why does the causal mask
# let a single forward pass give the loss at every position of a sequence at
# once (chapter section 6, and "The causal mask" in the short chapter)?
#
# * **a.** With the mask, the output at position `i` depends only on tokens
#   `0 … i`, so the true sequence can go in whole and no position can see the
#   token it is asked to predict (this is called teacher forcing).
# * **b.** The mask forbids half of the pairs, so the scores of all positions
#   fit in memory at once instead of one position at a time.
# * **c.** The mask makes the weight grid symmetric, so each pair of positions
#   is computed once and shared by both of them.
# * **d.** The mask removes the padding at the end of short sentences, so
#   sequences of every length can share one batch.
#
# Set `TEACHER_FORCING` to your letter.

# %% solution id=teacher_forcing
# Replace `raise NotStarted()` below with TEACHER_FORCING = "<letter>", one lower-case letter.
### BEGIN SOLUTION
TEACHER_FORCING = "a"
### END SOLUTION

# %% tests id=hidden_teacher_forcing
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("TEACHER_FORCING", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("teacher_forcing", TEACHER_FORCING)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 4: the head size of a large model
#
# A model has width `d = 4096` and `h = 32` heads (chapter section 5). What is
# the head size `d_k`? Set `HEAD_SIZE_4096` to an `int`.

# %% solution id=head_size_4096
# Replace `raise NotStarted()` below with HEAD_SIZE_4096 = <an int>.
### BEGIN SOLUTION
HEAD_SIZE_4096 = 4096 // 32
### END SOLUTION

# %% tests id=hidden_head_size_4096
# Form only: a positive integer. The value is marked when your work is graded.
check_answer_form("HEAD_SIZE_4096", globals(), hint="use // rather than /")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("head_size_4096", HEAD_SIZE_4096)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 5: the weights of that attention block
#
# Same model, `d = 4096` and `h = 32`, with full multi-head attention: how many
# weights do `W_Q`, `W_K`, `W_V` and `W_O` hold together (no biases; chapter
# section 5)? Set `PARAMS_4096` to the exact count as an `int`, not a rounded
# figure.

# %% solution id=params_4096
# Replace `raise NotStarted()` below with PARAMS_4096 = <an int>.
### BEGIN SOLUTION
PARAMS_4096 = 4 * 4096**2
### END SOLUTION

# %% tests id=hidden_params_4096
# Form only: a positive integer. The value is marked when your work is graded.
check_answer_form("PARAMS_4096", globals(), hint="write 1_000 rather than 1e3")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("params_4096", PARAMS_4096)
### END HIDDEN TESTS

# %% [markdown]
# ## Could you have skipped the chapter?
#
# The chapter says you may skip it if you can write its formula from memory
# and explain three things about it. Four questions, one per item.
#
# ### Question 6: the formula
#
# For queries $Q$, keys $K$ and values $V$ with head size $d$, which line is
# scaled dot-product attention (chapter section 4)?
#
# * **a.** $\operatorname{softmax}(QK^{\top})\,V / \sqrt{d}$
# * **b.** $\operatorname{softmax}(QV^{\top} / \sqrt{d})\,K$
# * **c.** $\operatorname{softmax}(QK^{\top} / d)\,V$
# * **d.** $\operatorname{softmax}(QK^{\top} / \sqrt{d})\,V$
# * **e.** $\operatorname{softmax}(K^{\top}Q / \sqrt{d})\,V$
#
# Set `SKIP_FORMULA` to your letter.

# %% solution id=skip_formula
# Replace `raise NotStarted()` below with SKIP_FORMULA = "<letter>", one lower-case letter.
### BEGIN SOLUTION
SKIP_FORMULA = "d"
### END SOLUTION

# %% tests id=hidden_skip_formula
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_FORMULA", globals(), letters="abcde")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_formula", SKIP_FORMULA)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 7: why √d
#
# Why are the scores divided by the square root of the head size
# (chapter section 3)?
#
# * **a.** Without it the weights of a row would not add up to one; the
#   division is what normalises them.
# * **b.** When the parts of a query and a key are independent with mean 0 and
#   variance 1, their dot product adds up `d` such products and has variance
#   `d`; dividing by √d brings the spread back to about 1, so the softmax does
#   not collapse onto one key and its gradients do not vanish.
# * **c.** It makes the scores cheaper: the cost of one score then grows like
#   √d instead of `d`.
# * **d.** It turns each dot product into the cosine of the angle between the
#   query and the key, so every score lies between −1 and 1.
#
# Set `SKIP_SQRT` to your letter.

# %% solution id=skip_sqrt
# Replace `raise NotStarted()` below with SKIP_SQRT = "<letter>", one lower-case letter.
### BEGIN SOLUTION
SKIP_SQRT = "b"
### END SOLUTION

# %% tests id=hidden_skip_sqrt
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_SQRT", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_sqrt", SKIP_SQRT)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 8: the causal mask
#
# What does a causal mask do (chapter section 6)?
#
# * **a.** It adds −∞ to the scores of the filler positions at the end of short
#   sentences, so a batch can hold sentences of different lengths.
# * **b.** It forbids each position from reading the positions before it, so a
#   token reads only itself and what follows.
# * **c.** It adds −∞ to the score $S_{ij}$ whenever $j > i$, so after the
#   softmax position `i` gives exactly zero weight to every later position.
# * **d.** It multiplies the weights of later positions by 0 after the softmax,
#   so the remaining weights of a row add up to less than one.
#
# Set `SKIP_CAUSAL` to your letter.

# %% solution id=skip_causal
# Replace `raise NotStarted()` below with SKIP_CAUSAL = "<letter>", one lower-case letter.
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
# ### Question 9: what heads buy
#
# What does running several heads side by side buy, compared with one head of
# the full width (chapter section 5)?
#
# * **a.** Several independent patterns of weights in one layer, so a token can
#   draw on different tokens for different reasons at the same time, with the
#   same 4·d² weights as one head.
# * **b.** More capacity: `h` heads hold `h` times the weights of one head of
#   the full width.
# * **c.** Less work: each head's score grid has `(n / h)²` cells instead of
#   `n²`.
# * **d.** Precision: averaging the heads cancels the rounding errors of the
#   softmax.
#
# Set `SKIP_HEADS` to your letter.

# %% solution id=skip_heads
# Replace `raise NotStarted()` below with SKIP_HEADS = "<letter>", one lower-case letter.
### BEGIN SOLUTION
SKIP_HEADS = "a"
### END SOLUTION

# %% tests id=hidden_skip_heads
# Form only: one of the letters offered. The answer itself is marked when your work is graded.
check_answer_form("SKIP_HEADS", globals(), letters="abcd")
### BEGIN HIDDEN TESTS
from autograder.incell import hidden_check
hidden_check("skip_heads", SKIP_HEADS)
### END HIDDEN TESTS

# %% [markdown]
# That is the whole assignment. The chapter's last word is worth keeping: a
# mask that is wrong in a quiet way trains without any error message, which is
# why every mask in notebook 05 is checked against a plain rule.
