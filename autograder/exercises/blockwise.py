"""Notebook 06, blockwise attention: the same output, one block of keys at a time, in little memory."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import attention_inputs, f32, normal_draws, property_examples, worked
from autograder.exercises.spec import (ARRAYS, COUNTS, Exercise, Mistake, Points, Requirement, case, count_edges,
                                       one_sequence_only)
from solutions import attention as ref

NOTEBOOK = "06_blockwise"
# The mistake that shows in memory, not in values; the judge names it by this
# same name (judge.FULL_GRID; tests/judge/test_registry.py holds them equal).
FULL_GRID = "builds the full n × n grid"


# Its full grid, 32 MiB in float64, is twice the cap of the visible memory case; an answer's honest peak,
# with its notebook's load and the decoded inputs counted (autograder/grading_child.py), is some 8 MiB.
VISIBLE_TOKENS = 2048


def blockwise_attention_visible():
    w = worked()
    long = np.random.default_rng(6).standard_normal((3, VISIBLE_TOKENS, 8))
    return [case("the worked example, blocks of 3", w.Q, w.K, w.V, 3),
            case("the worked example, blocks of 2, causal", w.Q, w.K, w.V, 2, causal=True),
            case("every size different: 3 queries, 5 keys in blocks of 4, d_k = 2, d_v = 6", w.Q[:3, :2],
                 np.vstack([w.K, w.K[:1] + 1])[:, :2], np.hstack([np.vstack([w.V, w.V[:1] - 1])] * 2)[:, :6], 4),
            case("the worked example and its keys reversed, a batch (2, n, d) in float32, blocks of 3",
                 *(f32(np.stack([a, a[::-1] if a is not w.Q else a])) for a in (w.Q, w.K, w.V)), 3),
            case(f"{VISIBLE_TOKENS:,} random tokens in blocks of 64, with its memory measured", *long, 64,
                 memory_limit_bytes=VISIBLE_TOKENS ** 2 * 8 // 2, grid_bytes=VISIBLE_TOKENS ** 2 * 8),
            case("V with a row more than K has keys", w.Q, w.K, np.vstack([w.V, w.V[:1]]), 2, raises="ValueError"),
            case("a block size of True", w.Q, w.K, w.V, True, raises="ValueError")]


# The causal memory case: long enough that its n_q × n_k cells, at one byte each (a boolean causal mask), are
# over its cap on their own (16 MiB against 12), with room above an honest answer's peak. In float32 and in blocks
# of 16, an honest answer's working arrays (n_q × block_size each) stay small: some 4 MiB measured in the grading
# child, the notebook's load counted (the notebook's own walk; 7 MiB in float64, 15 in blocks of 64), under 1 MiB
# under tracemalloc, as mutation/grading.py measures. A causal case of 8,192 tokens in blocks of 64 told the same
# apart at four times the work (its walk is n², whatever the block size).
CAUSAL_TOKENS, CAUSAL_BLOCK = 4096, 16
CAUSAL_CAP = CAUSAL_TOKENS ** 2 * 3 // 4  # bytes: three quarters of one byte per cell
# The hidden memory case without a mask, in float32: any n_q × n_k array of scores or weights (4 bytes a cell,
# 16 MiB) is over its cap on its own; an honest answer's peak is some 3 MiB in a fresh grading child, the
# notebook's load counted. (4,096 tokens in blocks of 64 in float64 told the same apart at four times the work.)
HIDDEN_TOKENS, HIDDEN_BLOCK = 2048, 32
HIDDEN_CAP = HIDDEN_TOKENS ** 2 * 3  # bytes: three quarters of a float32 cell


def blockwise_attention_hidden(rng):
    n = normal_draws(rng)
    tokens, causal_tokens = HIDDEN_TOKENS, CAUSAL_TOKENS
    return [
        case("blocks of 4 over 10 keys (4 does not divide 10)", n(7, 5), n(10, 5), n(10, 3), 4, checks="cross"),
        case("a batch (2,) in float32, blocks of 3, causal", n(2, 8, 4, dtype=f32), n(2, 8, 4, dtype=f32),
             n(2, 8, 6, dtype=f32), 3, causal=True, checks="batched, float32"),
        case("large scores, blocks of 2", n(5, 8, scale=30), n(9, 8, scale=30), n(9, 2), 2),
        case("scores near ±1e4, blocks of 3", n(5, 8, scale=100), n(9, 8, scale=100), n(9, 2), 3, checks="1e4, cross"),
        case("one block of all 6 keys", n(6, 4), n(6, 4), n(6, 4), 64),
        case("K and V of different lengths", n(3, 4), n(5, 4), n(6, 4), 2, raises="ValueError", checks="bad shape"),
        case("K of 6 keys, V of 5, causal: 3 queries see only keys 0 to 2", n(3, 4), n(6, 4), n(5, 4), 2, causal=True,
             raises="ValueError", checks="bad shape"),
        case("Q of width 4 against K of width 3, no keys", n(3, 4), n(0, 3), n(0, 2), 2, raises="ValueError",
             checks="bad shape"),
        case("Q of width 3 against K of width 4, no keys", n(3, 3), n(0, 4), n(0, 2), 2, raises="ValueError",
             checks="bad shape"),
        case("Q a batch (2,) against one sequence of keys and values", n(2, 4, 3), n(5, 3), n(5, 2), 2, checks="batched"),
        case("K a batch (2,), Q and V one sequence", n(4, 3), n(2, 5, 3), n(5, 2), 2, checks="batched"),
        case("V a batch (2,), Q and K one sequence", n(4, 3), n(5, 3), n(2, 5, 2), 2, checks="batched"),
        case("every score of every query near −1e4, blocks of 2", 100 + n(3, 4), -50 + n(5, 4), n(5, 2), 2,
             checks="1e4"),
        case("6 tokens in blocks of 2, causal", n(6, 4), n(6, 4), n(6, 3), 2, causal=True),
        case("600 tokens of width 30 in blocks of 100, causal", n(600, 30), n(600, 30), n(600, 30), 100, causal=True),
        case("sizes past 256: 2 queries against 3 keys, d_k = 300", n(2, 300), n(3, 300), n(3, 2), 2),
        case("one block of 1,024 keys of width 300", n(2, 300), n(1024, 300), n(1024, 300), 1024),
        case("a block size of 0", n(3, 4), n(3, 4), n(3, 4), 0, raises="ValueError", checks="bad size"),
        case("a block size of 2.0", n(3, 4), n(3, 4), n(3, 4), 2.0, raises="ValueError", checks="bad size"),
        case("a block size of True", n(3, 4), n(3, 4), n(3, 4), True, raises="ValueError", checks="bad size"),
        case(f"{tokens:,} tokens in blocks of {HIDDEN_BLOCK}, in float32, with its memory measured",
             *(n(tokens, 8, dtype=f32) for _ in "QKV"), HIDDEN_BLOCK, memory_limit_bytes=HIDDEN_CAP,
             grid_bytes=tokens ** 2 * 4, seconds=60),
        case(f"{causal_tokens:,} tokens in blocks of {CAUSAL_BLOCK}, causal, in float32, with its memory measured",
             *(n(causal_tokens, 8, dtype=f32) for _ in "QKV"), CAUSAL_BLOCK, causal=True,
             memory_limit_bytes=CAUSAL_CAP, grid_bytes=causal_tokens ** 2 * 4, seconds=60),
    ] + [case(f"a drawn example: Q {Q.shape}, K {K.shape}, V {V.shape}, {Q.dtype}", Q, K, V, 3)
         for Q, K, V in property_examples(attention_inputs(), 6)] + \
        count_edges((n(5, 4), n(7, 4), n(7, 3), 3), {3: "block_size"})


NOT_RESCALED, NOT_DIVIDED = "accumulator not rescaled", "no final division by the running sum"


def _blockwise_mistakes(Q, K, V, block_size=128, causal=False) -> dict[str, np.ndarray]:
    """Both mistakes' outputs, (..., n_q, d_v) each, in one pass: they differ only in the running sum and the
    accumulator, so the blocks' scores, maxima, exponentials and products are computed once for both."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    n_q, n_k = Q.shape[-2], K.shape[-2]
    Qs = Q / math.sqrt(Q.shape[-1])
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf, dtype=Q.dtype)
    total = np.zeros((*batch, n_q, 1), dtype=Q.dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=Q.dtype)
    kept_total, kept_acc = total, acc  # never rescaled: the factor is 1
    for start in range(0, n_k, block_size):
        s = Qs @ np.swapaxes(K[..., start:start + block_size, :], -1, -2)
        if causal:
            s = np.where(np.arange(start, start + s.shape[-1])[None, :] > np.arange(n_q)[:, None], -np.inf, s)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        factor, ones = np.exp(m - new_m), np.ones_like(m)
        p = np.exp(s - new_m)
        block_sum, block_mix = p.sum(axis=-1, keepdims=True), p @ V[..., start:start + block_size, :]
        total, kept_total = total * factor + block_sum, kept_total * ones + block_sum
        acc, kept_acc = acc * factor + block_mix, kept_acc * ones + block_mix
        m = new_m
    return {NOT_RESCALED: kept_acc / kept_total, NOT_DIVIDED: acc, "_right": acc / total}


def _blockwise_unchecked(Q, K, V, block_size=128, causal=False):
    """The right walk with no checks: V longer than K goes unread, a block size of True is 1."""
    return _blockwise_mistakes(Q, K, V, int(block_size), causal)["_right"]


def _blockwise_of_the_values_it_needs(Q, K, V, block_size=128, causal=False):
    """The right walk that reads only the value rows its keys need (V[..., :n_k, :], and with `causal` only the
    first n_q of them) instead of checking that K and V have one row per key."""
    n_k = min(np.shape(K)[-2], np.shape(Q)[-2]) if causal else np.shape(K)[-2]
    return ref.blockwise_attention(Q, np.asarray(K)[..., :n_k, :], np.asarray(V)[..., :n_k, :], block_size, causal)


def _blockwise_in_float64(Q, K, V, block_size=128, causal=False):
    return ref.blockwise_attention(*(np.asarray(a, dtype=np.float64) for a in (Q, K, V)), block_size, causal)


def _blockwise_with_the_causal_mask_built(Q, K, V, block_size=128, causal=False):
    """Right values, blocks and all, but with the whole n_q × n_k causal mask built first, as booleans: the
    smallest such mask, one byte a cell (a float mask is 4 or 8 times larger)."""
    if causal:
        forbidden = np.arange(np.shape(K)[-2])[None, :] > np.arange(np.shape(Q)[-2])[:, None]
        forbidden.sum()  # used, so it is made
    return ref.blockwise_attention(Q, K, V, block_size, causal)


def _blockwise_by_full_grid(Q, K, V, block_size=128, causal=False):
    """Right values and checks, from the whole n_q × n_k grid at once."""
    ref.blockwise_attention(Q[..., :1, :], K, V, block_size)  # its checks
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    n_q, n_k = Q.shape[-2], K.shape[-2]
    mask = np.where(np.arange(n_k)[None, :] > np.arange(n_q)[:, None], -np.inf, 0.0) if causal else None
    return ref.attention(Q, K, V, mask)[0]


# Mistake outputs computed but not yet asked for: those of the last inputs only.
_computed: dict[tuple, np.ndarray] = {}


def _mistake_output(name: str):
    """The variant of mistake `name`: its output from `_blockwise_mistakes`, which computes the other
    mistake's too and keeps it until asked for on the same inputs (the case builder asks for each in turn)."""
    def variant(Q, K, V, block_size=128, causal=False):
        inputs = (block_size, causal, *((a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, (Q, K, V))))
        found = _computed.pop((inputs, name), None)
        if found is not None:
            return found
        outputs = _blockwise_mistakes(Q, K, V, block_size, causal)
        _computed.clear()
        _computed.update({(inputs, other): output for other, output in outputs.items() if other not in (name, "_right")})
        return outputs[name]
    return variant


EXERCISES = (
    # Built on nothing: its memory is measured, and work done by a stand-in would not count.
    Exercise("blockwise_attention", ref.blockwise_attention, blockwise_attention_hidden, blockwise_attention_visible,
             stream=14, meets=ARRAYS | COUNTS | frozenset({"cross", "1e4"}), points=Points(2, 4), mistakes=(
        Mistake(NOT_RESCALED, 7,
                "When a block raises the running maximum, multiply the running sum and the accumulator by exp(old max − new max).",
                _mistake_output(NOT_RESCALED)),
        Mistake(NOT_DIVIDED, 7, "Divide the accumulator by the running sum at the end.", _mistake_output(NOT_DIVIDED)),
        Mistake(FULL_GRID, 7, "Its values are right but its memory grows with n²; "
                "the memory-measured hidden case names it.", None),
    ), requirements=(
        Requirement("leading batch dimensions broadcast as in `attention`", one_sequence_only(ref.blockwise_attention)),
        Requirement("gives exactly what your `attention` from notebook 03 gives", NOT_RESCALED,
                    docstring="equal to attention's output"),
        Requirement("With `causal=True`, key `j` is forbidden to query `i` whenever `j > i`",
                    lambda Q, K, V, block_size=128, causal=False: ref.blockwise_attention(Q, K, V, block_size),
                    docstring="causal: when True, key j is forbidden to query i if j > i"),
        Requirement("Never build an array with `n_q × n_k` cells", _blockwise_by_full_grid,
                    docstring="without ever holding an n_q x n_k array"),
        Requirement("The memory must grow with `n_q · block_size`", _blockwise_by_full_grid),
        Requirement("not the causal mask", _blockwise_with_the_causal_mask_built,
                    unseen="the visible memory case is not causal: one large case is enough for a notebook"),
        Requirement("float32 in gives float32 out", _blockwise_in_float64),
        Requirement("Raise a `ValueError` when `Q` and `K` differ in their last dimension", _blockwise_unchecked),
        Requirement("when `K` and `V` differ in their number of rows", _blockwise_of_the_values_it_needs),
    ), shows=('The blocks must add up to plain attention: "cube" becomes +0.58, -1.08, +0.54, +0.12.\n'
              "Also: float32 inputs; 2,048 random tokens, where the call may hold at most half of the 32 MiB\n"
              "grid at once; and bad inputs (V with a row more than K, a block size of True) that must raise a\n"
              "ValueError.")),
)
