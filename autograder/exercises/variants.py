"""Known mistakes shared by several notebooks' exercises, written as the student would.

Each is the reference with one thing done differently; built from the
reference, so they stay instructor-only (never released).
"""

from __future__ import annotations

import math

import numpy as np

from solutions import attention as ref


def as_computed(a) -> np.ndarray:
    """`a` as an array, read as notebook 01's general rule says every answer reads numbers: integers as float64,
    floats in their own dtype. A mistake's writing starts from it, so that it is the one mistake it is named for
    and not a second slip besides (8-bit integers that wrap round: 3 − 5 is 254)."""
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype.kind in "iu" else a


def softmax_no_max(S, axis=-1):
    """softmax without subtracting the row maximum (overflows for large scores), written as most write it:
    a slice whose every score is −inf is NaN too."""
    S = as_computed(S)
    e = np.exp(S)
    return e / e.sum(axis=axis, keepdims=True)


def softmax_no_max_guarded(S, axis=-1):
    """The same mistake by one who guards a slice whose every score is −inf (it gives zeros)."""
    S = as_computed(S)
    e = np.exp(S)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e, dtype=np.result_type(e, total)), where=total > 0)


def softmax_unguarded(S, axis=-1):
    """softmax that subtracts the row maximum but leaves an all −inf row as NaN (−inf − −inf)."""
    S = as_computed(S)
    e = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention_with(Q, K, V, mask=None, *, scale=None, softmax=ref.softmax, axis=-1, mask_mode="add"):
    """attention with one thing done differently: the scale(d_k), the softmax, its axis,
    or the mask added ("add"), subtracted ("flip"), multiplied in ("multiply"), added after
    ("after") or used after the softmax to zero the forbidden weights ("zeroed": A * (mask == 0))."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    d_k = Q.shape[-1]
    S = ref.raw_scores(Q, K)
    S = S / (math.sqrt(d_k) if scale is None else scale(d_k))
    m = None if mask is None else np.asarray(mask).astype(S.dtype)
    if m is not None and mask_mode == "add":
        S = S + m
    if m is not None and mask_mode == "flip":
        S = S - m
    if m is not None and mask_mode == "multiply":
        S = S * np.where(np.isinf(m), 0, 1).astype(S.dtype)
    A = softmax(S, axis=axis)
    if m is not None and mask_mode == "after":
        A = A + m
    if m is not None and mask_mode == "zeroed":
        A = A * (m == 0)
    return A @ V, A
