"""Answer key of notebook 08: the chapter's "Check yourself" and "Skip this chapter if".

Keys are the question names of ``notebooks/attention/08_check_yourself.py``
(the graded cell of question ``q`` is ``hidden_q``). A choice question maps to
the right letter among the options printed in that notebook, a count to its
exact int, and ``equal_scores`` to the reference function the student's
``equal_scores_output`` is compared with. Changing an option's wording or
order in the notebook means changing its letter here.
"""

from __future__ import annotations

import numpy as np


def equal_scores_output(V) -> np.ndarray:
    """What attention outputs for a query whose scores are all equal.

    Equal scores give equal weights, 1 / n_k each, so the output is the plain
    mean of the value rows the query may see.
    V: (..., n_k, d_v). Returns (..., d_v); float dtypes are kept, integers
    are averaged in float64.
    """
    V = np.asarray(V)
    if V.dtype.kind not in "fiu" or V.ndim < 2 or V.shape[-2] == 0:
        raise ValueError(f"V must be real numbers of shape (..., n_k, d_v) with n_k >= 1, "
                         f"got shape {V.shape} and dtype {V.dtype}")
    return V.mean(axis=-2)


ANSWERS = {
    # Check yourself
    "convex_combination": "c",   # only blends inside the hull of the visible value rows
    "equal_scores": equal_scores_output,
    "teacher_forcing": "a",      # position i depends on tokens 0..i only, so no target leaks
    "head_size_4096": 4096 // 32,
    "params_4096": 4 * 4096**2,  # 67,108,864
    # Skip this chapter if ...
    "skip_formula": "d",         # softmax(Q Kᵀ / √d) V
    "skip_sqrt": "b",            # q·k has variance d; dividing restores unit spread
    "skip_causal": "c",          # -inf on S_ij for j > i
    "skip_heads": "a",           # several patterns per layer, same 4d² weights
}
