"""Notebook 01, the worked example: how far attention moves each token, and Q, K, V."""

from __future__ import annotations

import numpy as np

from autograder.exercises.inputs import normal_draws, worked
from autograder.exercises.spec import (ARRAYS, Exercise, Mistake, Requirement, case, dimension_edges, one_sequence_only,
                                       small_unsigned)
from autograder.exercises.variants import as_computed
from solutions import attention as ref

NOTEBOOK = "01_worked_example"


def token_movement_visible():
    w = worked()
    return [case("the worked example before and after attention", w.X, w.O),
            case("the worked example twice, as a batch of 2", np.stack([w.X, w.X[::-1]]), np.stack([w.O, w.O[::-1]])),
            case("its first 3 tokens: 3 tokens of width 4 (a mean over the tokens differs)", w.X[:3], w.O[:3]),
            case("shapes that differ", w.X, w.O[:3], raises="ValueError"),
            case("shapes that differ but broadcast (one row of O)", w.X, w.O[:1], raises="ValueError")]


def token_movement_hidden(rng):
    n = normal_draws(rng)
    return [case("a batch (2, 5, 3) in float64", n(2, 5, 3), n(2, 5, 3), checks="batched"),
            case("7 tokens of width 6 in float32", n(7, 6, dtype=np.float32), n(7, 6, dtype=np.float32),
                 checks="float32"),
            case("shapes that differ", n(3, 4), n(4, 4), raises="ValueError", checks="bad shape"),
            case("shapes that broadcast: a batch against one sequence", n(2, 4, 3), n(4, 3), raises="ValueError",
                 checks="bad shape"),
            case("shapes that broadcast: one sequence against a batch", n(4, 3), n(2, 4, 3), raises="ValueError",
                 checks="bad shape"),
            case("8-bit unsigned integers of 0 to 2, X at or above O everywhere (nothing wraps round)",
                 small_unsigned(4, 3) + small_unsigned(4, 3, k=1), small_unsigned(4, 3), checks="integers")] + \
        dimension_edges((n(4, 3), n(4, 3)), {0: "X", 1: "O"}, together=False)


def _movement_last_two_axes_only(X, O):
    """token_movement written for one sequence: the mean over axis 1, not the last axis."""
    return np.abs(np.asarray(X, dtype=float) - np.asarray(O, dtype=float)).mean(axis=1)


def _movement_unchecked(X, O):
    """token_movement that lets NumPy broadcast shapes that differ."""
    return np.abs(np.asarray(X, dtype=float) - np.asarray(O, dtype=float)).mean(axis=-1)


def _projections_unchecked(X, W_q, W_k, W_v):
    """project_qkv that lets NumPy's matmul decide what fits."""
    return tuple(np.asarray(X) @ np.asarray(W) for W in (W_q, W_k, W_v))


def _projections_of_one_width(X, W_q, W_k, W_v):
    """project_qkv that asks all three matrices to be one shape: it refuses a d_v other than d_k."""
    if not np.shape(W_q) == np.shape(W_k) == np.shape(W_v):
        raise ValueError(f"W_q, W_k and W_v differ in shape: {np.shape(W_q)}, {np.shape(W_k)}, {np.shape(W_v)}")
    return ref.project_qkv(X, W_q, W_k, W_v)


def project_qkv_visible():
    w = worked()
    as32 = lambda a: a.astype(np.float32)  # noqa: E731
    return [case("the worked example", w.X, w.W_q, w.W_k, w.W_v),
            case("the worked example and its tokens reversed, a batch (2, n, d) in float32, W_v cut to d_v = 2",
                 as32(np.stack([w.X, w.X[::-1]])), as32(w.W_q), as32(w.W_k), as32(w.W_v[:, :2])),
            case("every size different: 3 tokens of width 4, d_k = 2, d_v = 6", w.X[:3], w.W_q[:, :2], w.W_k[:, :2],
                 np.hstack([w.W_v, w.W_v])[:, :6]),
            case("a W_v of the wrong height", w.X, w.W_q, w.W_k, w.W_v[:3], raises="ValueError"),
            case("a W_v that is a stack of 2 matrices", w.X, w.W_q, w.W_k, np.stack([w.W_v, w.W_v]),
                 raises="ValueError"),
            case("a W_k of one column given as a 1-D vector", w.X, w.W_q, w.W_k[:, 0], w.W_v, raises="ValueError")]


def project_qkv_hidden(rng):
    n = normal_draws(rng)
    return [case("a batch (2, 5, 6), d_k = 3, d_v = 4", n(2, 5, 6), n(6, 3), n(6, 3), n(6, 4), checks="batched"),
            case("float32, 9 tokens of width 8",
                 *(n(9, 8, dtype=np.float32) if i == 0 else n(8, 8, dtype=np.float32) for i in range(4)),
                 checks="float32"),
            case("a W_q that does not fit X", n(5, 6), n(5, 3), n(6, 3), n(6, 3), raises="ValueError",
                 checks="bad shape"),
            case("a W_k that is one column, 1-D", n(5, 6), n(6, 3), n(6), n(6, 3), raises="ValueError",
                 checks="bad shape"),
            case("a W_k wider than W_q", n(5, 6), n(6, 3), n(6, 4), n(6, 3), raises="ValueError", checks="bad shape"),
            case("a W_k narrower than W_q", n(5, 6), n(6, 3), n(6, 2), n(6, 3), raises="ValueError",
                 checks="bad shape"),
            case("a W_v that is a stack of 2 matrices (2, 6, 3)", n(5, 6), n(6, 3), n(6, 3), n(2, 6, 3),
                 raises="ValueError", checks="bad shape"),
            case("a W_v that is a stack of 6 matrices (6, 6, 3), its first dimension d", n(5, 6), n(6, 3), n(6, 3),
                 n(6, 6, 3), raises="ValueError", checks="bad shape"),
            case("sizes past 256: 2 tokens of width 260, d_k = 257, d_v = 2", n(2, 260), n(260, 257), n(260, 257),
                 n(260, 2))]


def _projections_of_a_column(X, W_q, W_k, W_v):
    """project_qkv that checks the first dimension only: a 1-D matrix of d numbers gives (..., n)."""
    arrays = [np.asarray(a) for a in (X, W_q, W_k, W_v)]
    dtype = np.result_type(np.float64 if all(a.dtype.kind in "iu" for a in arrays) else np.float32, *arrays)
    X, *W = (a.astype(dtype) for a in arrays)
    for name, w in zip(("W_q", "W_k", "W_v"), W):
        if w.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} {w.shape} does not fit X {X.shape}")
    if W[0].ndim == W[1].ndim == 2 and W[0].shape != W[1].shape:
        raise ValueError("W_q and W_k differ in width")
    return tuple(X @ w for w in W)


def _projections_of_any_widths(X, W_q, W_k, W_v):
    """project_qkv with every check but that of W_q and W_k's widths."""
    X = np.asarray(X, dtype=float)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if np.ndim(W) != 2 or np.shape(W)[0] != X.shape[-1]:
            raise ValueError(f"{name} {np.shape(W)} does not fit X {X.shape}")
    return tuple(X.astype(np.result_type(X, W), copy=False) @ W for W in (W_q, W_k, W_v))


EXERCISES = (
    Exercise("token_movement", ref.token_movement, token_movement_hidden, token_movement_visible, stream=0,
             meets=ARRAYS, mistakes=(
        Mistake("signed difference", 1, "Take the size of each difference (np.abs) before averaging.",
                lambda X, O: (as_computed(X) - as_computed(O)).mean(axis=-1)),
        Mistake("signed difference", 1, "Take the size of each difference (np.abs) before averaging.",
                lambda X, O: (as_computed(O) - as_computed(X)).mean(axis=-1)),  # the mirror image, O − X
        Mistake("sum instead of mean", 1, "Average the sizes over the d numbers of a token; do not add them.",
                lambda X, O: np.abs(as_computed(X) - as_computed(O)).sum(axis=-1)),
    ), requirements=(
        Requirement("any leading batch dimensions", _movement_last_two_axes_only),
        Requirement("Raise a `ValueError` naming both shapes when they differ", _movement_unchecked,
                    docstring="Raises ValueError when the shapes differ"),
    ), shows="On the worked example the chapter reports movements from 0.41 (third token) to 0.84 (first)."),
    Exercise("project_qkv", ref.project_qkv, project_qkv_hidden, project_qkv_visible, stream=1, meets=ARRAYS,
             parts=("Q", "K", "V"), mistakes=(
        Mistake("transposed weights", 2, "Rows of X are tokens: multiply X @ W, not X @ W.T.",
                lambda X, W_q, W_k, W_v: tuple(np.asarray(X) @ np.asarray(W).T for W in (W_q, W_k, W_v))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(as_computed(X) @ as_computed(W) for W in (W_k, W_q, W_v))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(as_computed(X) @ as_computed(W) for W in (W_q, W_v, W_k))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(as_computed(X) @ as_computed(W) for W in (W_v, W_k, W_q))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(as_computed(X) @ as_computed(W) for W in (W_k, W_v, W_q))),
        Mistake("projections in the wrong order", 2, "Return (Q, K, V) in that order.",
                lambda X, W_q, W_k, W_v: tuple(as_computed(X) @ as_computed(W) for W in (W_v, W_q, W_k))),
    ), requirements=(
        Requirement("`X` is `(..., n, d)`", one_sequence_only(ref.project_qkv)),
        Requirement("`d_v` may differ from `d_k`", _projections_of_one_width),
        Requirement("Raise a `ValueError` that names the matrix and both shapes when a matrix does not fit `X`",
                    _projections_unchecked, docstring="its first dimension is not d"),
        Requirement("when it is not 2-D (one column is still `(d, 1)`)", _projections_of_a_column,
                    docstring="Raises ValueError when a matrix is not 2-D"),
        Requirement("Raise one too when `W_q` and `W_k` differ in width", _projections_of_any_widths,
                    unseen="one more case of bad input would show the same error: the hidden cases try both ways",
                    docstring="W_q and W_k differ in width"),
    ), shows='The chapter\'s query of "cube" is -0.17, +2.36, -1.30, +0.32.'),
)
