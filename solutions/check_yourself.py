"""Answer key of notebook 08: the chapter's "Check yourself" and "Skip this chapter if".

Keys are the question names of ``notebooks/attention/08_check_yourself.py``
(the graded cell of question ``q`` is ``hidden_q``). A choice question maps to
the right letter among the options printed in that notebook (read in either
case), a count to its exact int (an answer must be an integer too: a float such as 128.0 is
refused), and ``equal_scores`` to the reference function the student's ``equal_scores`` is
compared with. Changing an option's wording or
order in the notebook means changing its letter here.
"""

from __future__ import annotations

import numpy as np


def equal_scores(V) -> np.ndarray:
    """What attention outputs for a query whose scores are all equal.

    Equal scores give equal weights, 1 / n_k each, so the output is the plain
    mean of the value rows the query may see.
    V: (..., n_k, d_v). Returns (..., d_v); float dtypes are kept, integers
    are averaged in float64.
    """
    return np.asarray(V).mean(axis=-2)  # the text states no error: any V with a key axis is averaged


ANSWERS = {
    # Check yourself (questions 1, 3, 4 and 7 are answered by functions graded as exercises:
    # hull_excess, leaked_targets, head_columns and gradient_size in solutions/attention.py)
    "equal_scores": equal_scores,
    "params_4096": 4 * 4096**2,  # 67,108,864
    # Skip this chapter if ...
    # 8.6: what softmax(Q Kᵀ) V / 8 does at d = 64.
    #   a: softmax taken for a linear map (a constant factor moved through it changes nothing);
    #   b: the scaling taken for a unit of the output (the weights do change: the scores are not scaled);
    #   d: the direction of the scaling reversed (dividing the scores flattens the weights, so leaving it
    #      out sharpens them).
    "skip_formula": "c",         # unscaled weights, more peaked; their mix shrunk to an eighth
    # 8.8: the causal mask of 4 tokens.
    #   a: the mirror image, a token kept from its past and shown its future (mask[i, j] read as key i, query j);
    #   b: only the last token hidden, as if the mask hid the end of the sequence instead of each one's future;
    #   d: off by one, the diagonal forbidden too (token 0 then has nothing to read).
    "skip_causal": "c",          # -inf above the diagonal: token 2 reads 0, 1 and 2
    # 8.9: 8 heads of 64 instead of one of 512, the same 4·d² weights.
    #   a: heads taken for a split of one computation (the raw scores do add up, the softmaxes do not);
    #   b: the √d_k divisor taken for a sharpening (it keeps every head's scores at the same spread);
    #   c: heads taken for a split of the tokens rather than of the numbers of each token.
    "skip_heads": "d",           # more patterns: each head weighs the tokens its own way
}
