"""Notebook 03, softmax and the mix: weights from scores, a soft lookup hardening, attention itself."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import (attention_inputs, f32, f64, forbidding_row, normal_draws, property_examples,
                                         worked)
from autograder.exercises.spec import (ARRAYS, SCORES, Exercise, Mistake, Points, Requirement, case, count_edges,
                                       dimension_edges, one_sequence_only, past_float32)
from autograder.exercises.variants import attention_with, softmax_no_max, softmax_no_max_guarded, softmax_unguarded
from solutions import attention as ref

NOTEBOOK = "03_softmax_and_mix"


def softmax_visible():
    w = worked()
    return [case("the worked example's scaled scores", w.S),
            case("the worked example with the last key forbidden", w.S + w.last_key_forbidden),
            case("scores of ±1e4", np.array([[1e4, 0.0, -1e4], [3e3, 3e3, 1.0]])),
            case("a row whose keys are all forbidden", np.array([[0.5, -np.inf], [-np.inf, -np.inf]])),
            case("the worked example twice, as a float32 batch of 2", np.stack([w.S, w.S[::-1]]).astype(f32)),
            case("integer scores", np.array([[2, 0, 1], [0, 0, 3]])),
            case("the worked example's scores along axis 0 (each column adds up to one)", w.S, axis=0)]


def softmax_hidden(rng):
    n = normal_draws(rng)
    large_and_forbidden = n(4, 6, scale=1e4)
    large_and_forbidden[2, :] = -np.inf
    cases = [case("scores near ±1e4 with one row all forbidden", large_and_forbidden, checks="1e4, masked row"),
             case("a batch (2, 3, 5, 7) in float32", n(2, 3, 5, 7, dtype=f32, scale=3), checks="batched, float32"),
             case("scores near ±1e4", n(4, 6, scale=1e4), checks="1e4")]
    masked = n(5, 6)
    masked[1, 2:] = -np.inf
    masked[3, :] = -np.inf
    return cases + [case("rows with forbidden keys and one fully forbidden row", masked, checks="masked row"),
                    case("scores (6, 3) along axis 0", n(6, 3), axis=0),
                    case("a single row of 9", n(9)),
                    case("integer scores", rng.integers(-4, 5, (3, 6)))]


def _weights_transposed(output, weights):
    """attention's answer with its weights keys by queries, (..., n_k, n_q)."""
    return output, np.swapaxes(weights, -1, -2).copy()


def _softmax_not_divided(S, axis=-1):
    """The shifted exponentials, never divided by their total: rows that do not add up to one."""
    S = np.asarray(S) if np.asarray(S).dtype.kind == "f" else np.asarray(S, dtype=np.float64)
    top = S.max(axis=axis, keepdims=True)
    return np.exp(S - np.where(np.isneginf(top), 0, top))


def _softmax_forbidden_as_zero(S, axis=-1):
    """softmax that gives a forbidden pair (−inf) the score 0 in a row that allows some other pair (a row with every
    pair forbidden still gives zeros): a forbidden key gets a weight."""
    S = np.asarray(S) if np.asarray(S).dtype.kind == "f" else np.asarray(S, dtype=np.float64)
    forbidden = np.isneginf(S)
    return ref.softmax(np.where(forbidden & ~forbidden.all(axis=axis, keepdims=True), 0.0, S), axis)


def _softmax_of_a_grid(S, axis=-1):
    """softmax written for one grid of rows: the last axis taken as axis 1, so a batch normalises over its queries."""
    return ref.softmax(S, axis=1 if axis == -1 else axis)


def _softmax_into_input_dtype(S, axis=-1):
    """softmax that divides into an array like S: integer scores give an integer buffer NumPy will not cast into."""
    S = np.asarray(S)
    top = S.max(axis=axis, keepdims=True)
    top[np.isneginf(top)] = 0
    e = np.exp(S - top)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(S), where=total > 0)


def lead_share_visible():
    return [case("leads of 0, 1 and 4 (the chapter: 0.500, 0.731, 0.982)", np.array([0.0, 1.0, 4.0])),
            case("leads of +1000 and −1000 (a hard match)", np.array([1000.0, -1000.0])),
            case("a 2 × 3 grid of leads in float32", np.array([[0.0, 1.0, 4.0], [-1.0, 2.0, -4.0]], dtype=f32)),
            case("integer leads of −2, 0 and 3", np.array([-2, 0, 3])),
            case("a plain number, 2.0", 2.0)]


def lead_share_hidden(rng):
    n = normal_draws(rng)
    return [case("leads from −6 to 6", np.linspace(-6, 6, 13)),
            case("a grid of leads in float32", n(3, 4, dtype=f32, scale=3)),
            case("leads of ±1e4 and ±40", np.array([1e4, -1e4, 40.0, -40.0])),
            case("a single lead of 2.5", np.float64(2.5)),
            case("a single float32 lead of 0.75, an array of shape ()", np.array(0.75, dtype=f32), checks="float32"),
            case("a plain number, −1.5", -1.5),
            case("a plain integer, 3", 3),
            case("integer leads", rng.integers(-5, 6, (2, 5)))]


def _lead_share_of_a_list(lead):
    """lead_share written for a list of leads: one pair per row of a 2-column grid."""
    lead = np.asarray(lead) if np.asarray(lead).dtype.kind == "f" else np.asarray(lead, dtype=np.float64)
    return ref.softmax(np.column_stack([lead, np.zeros_like(lead)]))[:, 0]


def _lead_share_in_input_dtype(lead):
    """The stable form written into an array like `lead`: integer leads give integer shares."""
    lead = np.asarray(lead)
    share = np.empty_like(lead)
    ahead = lead >= 0
    share[ahead] = 1 / (1 + np.exp(-lead[ahead]))
    share[~ahead] = np.exp(lead[~ahead]) / (1 + np.exp(lead[~ahead]))
    return share


def _lead_no_max(lead):
    lead = np.asarray(lead, dtype=float) if np.asarray(lead).dtype.kind != "f" else np.asarray(lead)
    return np.exp(lead) / (np.exp(lead) + 1)


def attention_visible():
    w = worked()
    Q, K, V = w.Q, w.K, w.V
    return [case("the worked example", Q, K, V),
            case("the worked example with the last key forbidden", Q, K, V, mask=w.last_key_forbidden),
            case("cross-attention from 2 queries to the 4 tokens", Q[:2], K, V),
            case("every size different: 3 queries, 5 keys, d_k = 2, d_v = 6", Q[:3, :2],
                 np.vstack([K, K[:1] + 1])[:, :2], np.hstack([np.vstack([V, V[:1] - 1])] * 2)[:, :6]),
            case("the worked example with queries and keys 100 times larger", 100 * Q, 100 * K, V),
            case("the worked example twice, as a float32 batch of 2", *_twice_in_float32(Q, K, V)),
            case("that batch with a padding mask: the second sequence 3 tokens long", *_twice_in_float32(Q, K, V),
                 mask=ref.padding_mask(np.array([4, 3]), 4)),
            case("keys of width 1 against queries of width 4", Q, K[:, :1], V, raises="ValueError"),
            case("one value for the 4 keys", Q, K, V[:1], raises="ValueError"),
            case("one key and its value, each given as a 1-D vector", Q, K[0], V[0], raises="ValueError")]


def _twice_in_float32(*arrays):
    """Each array and its tokens in reverse order, stacked as a float32 batch of 2."""
    return tuple(np.stack([a, a[::-1]]).astype(f32) for a in arrays)


def attention_hidden(rng):
    n = normal_draws(rng)
    return [
        case("scores near ±1e4 and a query whose every key is forbidden", n(3, 8, scale=100), n(5, 8, scale=100),
             n(5, 2), mask=forbidding_row(3, 5, 0), checks="1e4, masked row, cross"),
        case("cross-attention: 3 queries, 7 keys, d_k = 5, d_v = 2", n(3, 5), n(7, 5), n(7, 2), checks="cross"),
        case("a batch (2, 4) in float32", n(2, 4, 6, 8, dtype=f32), n(2, 4, 6, 8, dtype=f32), n(2, 4, 6, 3, dtype=f32),
             checks="batched, float32"),
        case("a causal mask on 6 tokens", n(6, 4), n(6, 4), n(6, 4), mask=ref.causal_mask(6)),
        case("a padding mask broadcast over a batch of 3", n(3, 5, 4), n(3, 5, 4), n(3, 5, 2),
             mask=ref.padding_mask(np.array([5, 3, 1]), 5)),
        case("large scores", n(4, 8, scale=40), n(5, 8, scale=40), n(5, 3)),
        case("scores near ±1e4", n(4, 8, scale=100), n(5, 8, scale=100), n(5, 3), checks="1e4"),
        case("a mask that forbids every key of query 1", n(3, 4), n(5, 4), n(5, 2), mask=forbidding_row(3, 5, 1),
             checks="masked row, cross"),
        case("K and V of different lengths", n(3, 4), n(5, 4), n(6, 4), raises="ValueError", checks="bad shape"),
        case("keys of width 1 against d_k = 4", n(3, 4), n(5, 1), n(5, 2), raises="ValueError", checks="bad shape"),
        case("one value row for 5 keys", n(3, 4), n(5, 4), n(1, 2), raises="ValueError", checks="bad shape"),
        case("float32 with a float64 causal mask", n(5, 4, dtype=f32), n(5, 4, dtype=f32), n(5, 3, dtype=f32),
             mask=ref.causal_mask(5), checks="float32"),
    ] + [case(f"a drawn example: Q {Q.shape}, K {K.shape}, V {V.shape}, {Q.dtype}", Q, K, V)
         for Q, K, V in property_examples(attention_inputs(), 6)] + _broadcast_masks(n) + [
        case("a causal mask on a batch (2, 4) of 4 tokens", n(2, 4, 4, 3), n(2, 4, 4, 3), n(2, 4, 4, 2),
             mask=ref.causal_mask(4), checks="batched"),
        case("sizes past 256: 2 queries against 260 keys, d_k = 300", n(2, 300), n(260, 300), n(260, 2),
             checks="cross")] + dimension_edges((n(3, 4), n(5, 4), n(5, 2)), {0: "Q", 1: "K", 2: "V"})


def _broadcast_masks(n):
    """Masks that broadcast to (n_q, n_k) = (3, 5) without being (3, 5): one per key (5,), one per query (3, 1),
    one row for every query (1, 5)."""
    Q, K, V = n(3, 4), n(5, 4), n(5, 2)
    keys = np.where(np.arange(5) >= 3, -np.inf, 0.0)
    return [case("a 1-D mask of one number per key (5,)", Q, K, V, mask=keys),
            case("a mask of one number per query (3, 1)", Q, K, V, mask=np.array([[0.0], [-1.0], [2.0]])),
            case("a mask of one row for every query (1, 5)", Q, K, V, mask=keys[None, :])]


def _attention_mask_as_is(Q, K, V, mask=None):
    """attention that adds the mask in its own dtype: a float64 mask makes float32 scores float64."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    S = ref.scaled_scores(Q, K)
    A = ref.softmax(S if mask is None else S + np.asarray(mask))
    return A @ V, A


def _attention_mask_by_index(Q, K, V, mask=None):
    """attention that forbids pairs by indexing the scores with the mask, which must then be their own shape."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    S = ref.scaled_scores(Q, K)
    if mask is not None:
        S[np.isneginf(np.asarray(mask))] = -np.inf
    A = ref.softmax(S)
    return A @ V.astype(A.dtype), A


def _attention_by_einsum(Q, K, V, mask=None):
    """attention written with einsum, which stretches an axis of size 1 where matmul would refuse it, and with no
    check of Q's width against K's (only of K's keys against V's)."""
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype.kind == "f" else a.astype(np.float64) for a in (Q, K, V))
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"Q {Q.shape}, K {K.shape} and V {V.shape} do not fit")
    S = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        S = S + np.asarray(mask).astype(S.dtype)
    A = ref.softmax(S)
    return np.einsum("...qk,...kv->...qv", A, V), A


def _attention_of_the_values_it_needs(Q, K, V, mask=None):
    """attention that fits V to the keys instead of checking it: the first n_k value rows, or one row stretched
    over every key (NumPy's broadcasting)."""
    V, n_k = np.asarray(V), np.shape(K)[-2]
    V = V[..., :n_k, :] if V.shape[-2] >= n_k else np.broadcast_to(V, (*V.shape[:-2], n_k, V.shape[-1]))
    return ref.attention(Q, K, V, mask)


def _attention_of_rows(Q, K, V, mask=None):
    """attention that reads a 1-D Q, K or V as one row (np.atleast_2d) instead of refusing it."""
    return ref.attention(*(np.atleast_2d(a) for a in (Q, K, V)), mask)


def _kernel_grid(n, kernel, *, wrap=False, flipped=False):
    """(n, n) weights of the fixed mix: row i takes kernel[k + r] of token i + k, r = len(kernel) // 2,
    zero-padded (with `wrap`, of token (i + k) mod n); with `flipped`, the kernel read back to front."""
    kernel = np.asarray(kernel).reshape(-1)
    kernel = kernel[::-1] if flipped else kernel
    r = kernel.size // 2
    C = np.zeros((n, n), dtype=kernel.dtype)
    for k in range(-r, kernel.size - r):
        if wrap:
            C += kernel[k + r] * np.roll(np.eye(n, dtype=kernel.dtype), k, axis=1)
        else:
            C += kernel[k + r] * np.eye(n, k=k, dtype=kernel.dtype)
    return C


def _gaps(X, W_q, W_k, W_v, kernel, perm, *, compare="moved", queries_kept=False, wrap=False, flipped=False,
          tokens_mixed=False, in_float64=True, perm_checked=True, kernel_checked=True):
    """permutation_gaps with one thing done differently: the permuted run compared with f(X) as it is
    (compare="unmoved") or moved by the inverse permutation ("inverse"); the queries left in their
    places (`queries_kept`); the mix wrapping round the ends, its kernel flipped, or mixing the tokens
    rather than their values; computed in the inputs' own dtype (not `in_float64`); perm or kernel unchecked."""
    X, W_q, W_k, W_v, kernel = (np.asarray(a) for a in (X, W_q, W_k, W_v, kernel))
    if in_float64:
        X, W_q, W_k, W_v, kernel = (a.astype(np.float64) for a in (X, W_q, W_k, W_v, kernel))
    X = X if X.dtype.kind == "f" else X.astype(np.float64)
    kernel = kernel if kernel.dtype.kind == "f" else kernel.astype(np.float64)
    if kernel_checked and (kernel.ndim != 1 or kernel.size % 2 == 0):
        raise ValueError(f"kernel must be 1-D of odd length, got shape {kernel.shape}")
    perm = np.asarray(perm)
    if perm_checked and (perm.shape != (len(X),) or not np.array_equal(np.sort(perm), np.arange(len(X)))):
        raise ValueError(f"perm must be a permutation of 0 … {len(X) - 1}, got {perm.tolist()}")
    C = _kernel_grid(len(X), kernel, wrap=wrap, flipped=flipped)

    def attended(T, queries_from=None):
        Q = (T if queries_from is None else queries_from) @ W_q
        return ref.attention(Q, T @ W_k, T @ W_v)[0]

    def mixed(T):
        return C @ (T if tokens_mixed else T @ W_v)

    where = {"moved": perm, "unmoved": np.arange(len(X)), "inverse": np.argsort(perm)}[compare]
    shuffled = X[perm]
    att = attended(shuffled, queries_from=X if queries_kept else None)
    return float(np.abs(att - attended(X)[where]).max()), float(np.abs(mixed(shuffled) - mixed(X)[where]).max())


def permutation_gaps_visible():
    w = worked()
    even, lopsided = np.array([0.25, 0.5, 0.25]), np.array([0.6, 0.3, 0.1])
    args = (w.X, w.W_q, w.W_k, w.W_v)
    return [case("the worked example shuffled to 'cube pick up the', the kernel 0.25, 0.50, 0.25", *args, even,
                 np.array([3, 0, 1, 2])),
            case("shuffled to 'the pick cube up', the lopsided kernel 0.6, 0.3, 0.1", *args, lopsided,
                 np.array([2, 0, 3, 1])),
            case("that shuffle in float32", *(a.astype(f32) for a in args), lopsided.astype(f32),
                 np.array([2, 0, 3, 1])),
            case("every size different: 5 tokens of width 4, d_k = 2, d_v = 6, the lopsided kernel",
                 np.vstack([w.X, w.X[:1] + 1]), w.W_q[:, :2], w.W_k[:, :2], np.hstack([w.W_v, w.W_v[:, :2]]), lopsided,
                 np.array([4, 2, 0, 3, 1])),
            case("a shuffle that repeats a position: 0, 1, 1, 2", *args, even, np.array([0, 1, 1, 2]),
                 raises="ValueError"),
            case("a kernel of 4 weights", *args, np.array([0.1, 0.4, 0.4, 0.1]), np.array([3, 0, 1, 2]),
                 raises="ValueError")]


def _shuffle(rng, n):
    """A random permutation of n positions that is not its own inverse (so the inverse tells apart)."""
    while True:
        perm = rng.permutation(n)
        if not np.array_equal(perm[perm], np.arange(n)):
            return perm


def permutation_gaps_hidden(rng):
    n = normal_draws(rng)

    def sentence(length, d=5, d_v=None, dtype=f64):
        return (n(length, d, dtype=dtype), n(d, 4, dtype=dtype, scale=0.6), n(d, 4, dtype=dtype, scale=0.6),
                n(d, d_v or d, dtype=dtype, scale=0.6))

    def kernel(width, dtype=f64):
        return rng.uniform(0.05, 1.0, width).astype(dtype)

    return [
        case("7 tokens shuffled, a lopsided kernel of width 3", *sentence(7), kernel(3), _shuffle(rng, 7)),
        case("9 tokens shuffled, d_v = 3, a kernel of width 5", *sentence(9, d=6, d_v=3), kernel(5),
             _shuffle(rng, 9)),
        case("6 tokens, each moved 2 places along (the last two to the front)", *sentence(6), kernel(3),
             np.roll(np.arange(6), 2)),
        case("8 tokens in float32", *sentence(8, dtype=f32), kernel(3, f32), _shuffle(rng, 8)),
        case("5 tokens read backwards, a lopsided kernel", *sentence(5), kernel(3), np.arange(5)[::-1]),
        case("4 tokens, a kernel of width 9, wider than the sentence", *sentence(4), kernel(9), _shuffle(rng, 4)),
        case("6 tokens, a kernel of width 1", *sentence(6), kernel(1), _shuffle(rng, 6)),
        case("5 tokens left in place", *sentence(5), kernel(3), np.arange(5)),
        case("a shuffle with position 3 twice and 0 missing", *sentence(5), kernel(3), np.array([3, 1, 2, 3, 4]),
             raises="ValueError"),
        case("a shuffle of 4 positions for 5 tokens", *sentence(5), kernel(3), np.array([3, 1, 2, 0]),
             raises="ValueError", checks="bad shape"),
        case("a shuffle that names position 5 of 5 tokens", *sentence(5), kernel(3), np.array([1, 2, 3, 4, 5]),
             raises="ValueError"),
        case("a kernel of 2 weights", *sentence(5), kernel(2), _shuffle(rng, 5), raises="ValueError",
             checks="bad shape"),
        case("a kernel given as a (1, 3) grid", *sentence(5), kernel(3)[None], _shuffle(rng, 5),
             raises="ValueError", checks="bad shape"),
        case("a kernel of 4 weights", *sentence(5), kernel(4), _shuffle(rng, 5), raises="ValueError",
             checks="bad shape"),
        case("a kernel given as a (3, 1) column", *sentence(5), kernel(3)[:, None], _shuffle(rng, 5),
             raises="ValueError", checks="bad shape"),
        case("a kernel of one weight given as a 0-d array", *sentence(5), kernel(1)[0], _shuffle(rng, 5),
             raises="ValueError", checks="bad shape"),
        case("a shuffle given as unsigned integers", *sentence(6), kernel(3), _shuffle(rng, 6).astype(np.uint8)),
        case("integer tokens past 2²⁵, where float32 holds every fourth only", past_float32(n(6, 5)),
             *sentence(6)[1:], kernel(3), _shuffle(rng, 6), checks="integers"),
    ]


def _distances(n, dtype=np.float64, signed=False):
    """(n, n) distances between query i and key j: |i − j|, or j − i when `signed`."""
    offset = np.arange(n)[None, :] - np.arange(n)[:, None]
    return (offset if signed else np.abs(offset)).astype(dtype)


def _reach_with(weights, *, signed=False, power=1, axis=-1, mean=False, checked=True):
    """reach with one thing done differently: signed offsets, distances to a power, the sum
    taken over the queries (axis=-2), a mean for the sum, or the shape unchecked."""
    A = np.asarray(weights)
    A = A if A.dtype.kind == "f" else A.astype(np.float64)
    if checked and (A.ndim < 2 or A.shape[-1] != A.shape[-2]):
        raise ValueError(f"weights must be (..., n, n), got shape {A.shape}")
    n_q, n_k = A.shape[-2:]
    offset = np.arange(n_k)[None, :] - np.arange(n_q)[:, None]
    D = (offset if signed else np.abs(offset)).astype(A.dtype) ** power
    product = A * D
    return product.mean(axis=axis) if mean else product.sum(axis=axis)


def _normalised(kernel):
    """The kernel's weights scaled to add up to one, as a mixture's do."""
    return kernel / kernel.sum()


def reach_visible():
    w = worked()
    A = ref.attention(w.Q, w.K, w.V)[1]
    only_pick = np.zeros((4, 4))
    only_pick[:, 0] = 1.0
    return [case("the worked example's weights", A),
            case("a convolution's weights, 0.25, 0.50, 0.25 (zero at the ends)", _kernel_grid(4, np.array([0.25, 0.5, 0.25]))),
            case("every token reading 'pick' alone", only_pick),
            case("the worked example's weights twice, as a float32 batch of 2", np.stack([A, A[::-1, ::-1]]).astype(f32)),
            case("a (4, 3) grid: 4 queries, 3 keys", A[:, :3], raises="ValueError"),
            case("one row of 4 weights", A[3], raises="ValueError")]


def reach_hidden(rng):
    n = normal_draws(rng)
    far = np.eye(96)
    far[95] = 0.0
    far[95, 5] = 1.0  # the last token reads the token 90 places back
    return [
        case("the weights of 7 tokens", ref.softmax(n(7, 7, scale=2))),
        case("a batch (2, 3) of 6 tokens in float32", ref.softmax(n(2, 3, 6, 6, dtype=f32, scale=2)),
             checks="batched, float32"),
        case("causal weights of 8 tokens", ref.softmax(n(8, 8, scale=2) + ref.causal_mask(8))),
        case("96 tokens each reading itself, the last reading 90 places back", far),
        case("a convolution of width 5 on 9 tokens", _kernel_grid(9, _normalised(rng.uniform(0.05, 1.0, 5)))),
        case("one token", np.ones((1, 1))),
        case("a (5, 4) grid", ref.softmax(n(5, 4)), raises="ValueError", checks="bad shape"),
        case("a batch of 2 (3, 4) grids", ref.softmax(n(2, 3, 4)), raises="ValueError", checks="bad shape"),
        case("one row of 6 weights", ref.softmax(n(6)), raises="ValueError", checks="bad shape"),
        case("a (1, 5) grid: one query's weights", ref.softmax(n(1, 5)), raises="ValueError", checks="bad shape"),
        case("a (5, 1) grid: 5 queries, one key", ref.softmax(n(5, 1)), raises="ValueError", checks="bad shape"),
        case("300 tokens", ref.softmax(n(300, 300, scale=2))),
    ]


def layer_counts_visible():
    return [case("512 tokens of width 768, 12 heads (the chapter's small language model: all three counts)",
                 512, 768, 12),
            case("width 768 in 10 heads", 512, 768, 10, raises="ValueError"),
            case("0 tokens", 0, 768, 12, raises="ValueError"),
            case("a width of 768.0, a float", 512, 768.0, 12, raises="ValueError")]


def layer_counts_hidden(rng):
    return [case("1,024 tokens of width 1,024, 16 heads", 1024, 1024, 16),
            case("7 tokens of width 6, 3 heads", 7, 6, 3),
            case("width 10 in 4 heads", 5, 10, 4, raises="ValueError", checks="bad shape"),
            case("−2 heads", 5, 6, -2, raises="ValueError", checks="bad size"),
            case("a length of 7.0, a float", 7.0, 6, 3, raises="ValueError", checks="bad size")] + \
        count_edges((7, 6, 1), {0: "n", 1: "d"}) + count_edges((7, 6, 2), {2: "n_heads"})


def _counts_checked_for(n, d, n_heads, *, sizes=True, division=True):
    """layer_counts that checks only that each size is at least 1 (`sizes`) and that n_heads divides d (`division`)."""
    if sizes and min(n, d, n_heads) < 1:
        raise ValueError(f"sizes must be at least 1, got n = {n}, d = {d}, n_heads = {n_heads}")
    if division and d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    return n * d, n * n, n_heads * n * n


EXERCISES = (
    Exercise("softmax", ref.softmax, softmax_hidden, softmax_visible, stream=6,
             meets=frozenset({"float32", "batched", "masked row", "1e4", "integers"}), points=Points(1, 3), mistakes=(
        Mistake("softmax over the wrong axis", 4, "Each row of scores (one query) must add up to one: normalise along `axis`.",
                lambda S, axis=-1: ref.softmax(S, axis=-2 if np.ndim(S) > 1 and axis in (-1, np.ndim(S) - 1) else -1)),
        Mistake("softmax without subtracting the row maximum", 4,
                "exp overflows to inf for large scores (inf/inf is NaN): subtract each row's maximum first.",
                softmax_no_max, also=(softmax_no_max_guarded,)),
        Mistake("an all-forbidden row not handled", 4,
                "A row of −inf scores has no maximum to take out (−inf − −inf is NaN): give it all-zero weights.",
                softmax_unguarded),
        Mistake("softmax over the whole array", 4, "Sum along `axis` with keepdims=True (`e.sum(axis=axis, "
                "keepdims=True)`): a sum with no axis makes the whole array, not each row, add up to one.",
                lambda S, axis=-1: ref.softmax(np.reshape(S, -1)).reshape(np.shape(S))),
    ), requirements=(
        Requirement("never negative, adding up to one", _softmax_not_divided,
                    docstring="never negative and add up to one"),
        Requirement("softmax along `axis`", lambda S, axis=-1: ref.softmax(S), docstring="add up to one along `axis`"),
        Requirement("of an array `S` of any shape, returning an array of the same shape", _softmax_of_a_grid,
                    docstring=("S: any shape", "Returns the same shape")),
        Requirement("Float32 stays float32", lambda S, axis=-1: ref.softmax(S, axis).astype(np.float64)),
        Requirement("integers are computed in float64", _softmax_into_input_dtype),
        Requirement("It must work for scores up to ±1e4", "softmax without subtracting the row maximum",
                    docstring="Stable for scores up to ±1e4"),
        Requirement("`exp(−inf)` is exactly 0, so that pair gets a weight of exactly 0", _softmax_forbidden_as_zero,
                    docstring="−inf gives a weight of exactly 0"),
        Requirement("Such a row must come out all zeros", "an all-forbidden row not handled",
                    docstring="a slice whose scores are all −inf gives all-zero weights"),
    ), shows='The chapter\'s weights for "cube" are 0.683, 0.103, 0.168 and 0.046: they add up to 1.000.'),
    Exercise("lead_share", ref.lead_share, lead_share_hidden, lead_share_visible, stream=22, built_on=("softmax",),
             meets=frozenset({"integers"}),
             mistakes=(
        Mistake("the trailing key's share", 4, "Return the weight of the key that is ahead: e^lead / (e^lead + 1).",
                lambda lead: 1 - ref.lead_share(lead)),
        Mistake("softmax without subtracting the row maximum", 4,
                "e^lead overflows to inf for a large lead (inf/inf is NaN): subtract the larger score first.",
                _lead_no_max),
        Mistake("raised but not divided by the total", 4, "Divide e^lead by the total e^lead + e^0 of both keys.",
                lambda lead: np.exp(np.asarray(lead, dtype=float))),
    ), requirements=(
        Requirement("`lead` is a number or an array of any shape", _lead_share_of_a_list,
                    docstring="a number or an array of leads"),
        Requirement("float32 stays float32", lambda lead: ref.lead_share(np.asarray(lead, dtype=np.float64))),
        Requirement("integers and plain numbers are computed in float64", _lead_share_in_input_dtype),
        Requirement("a plain number gives one number", lambda lead: np.atleast_1d(ref.lead_share(lead))),
        Requirement("It must give exactly 1.0 and 0.0 for leads of ±1000, not NaN",
                    "softmax without subtracting the row maximum"),
    ), shows="Leads of 0, 1 and 4 are worth 0.500, 0.731 and 0.982 of the mix (chapter section 4)."),
    Exercise("attention", ref.attention, attention_hidden, attention_visible, stream=7,
             meets=ARRAYS | SCORES, points=Points(1, 3),
             parts=("the output", "the weights"), computed_from="the weights",
             built_on=("raw_scores", "scaled_scores", "softmax"), mistakes=(
        Mistake("no scaling", 3, "Divide the scores by √d_k before the softmax.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, scale=lambda d: 1.0)),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, scale=float)),
        Mistake("softmax over the wrong axis", 4, "Each query's row of weights must add up to one (softmax along the keys).",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, axis=-2)),
        Mistake("softmax without subtracting the row maximum", 4, "Large scores overflow: subtract each row's maximum first.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, softmax=softmax_no_max),
                also=(lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, softmax=softmax_no_max_guarded),)),
        Mistake("an all-forbidden row not handled", 4,
                "A query whose every key is forbidden has no maximum to take out: give it all-zero weights, not NaN.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, softmax=softmax_unguarded)),
        Mistake("mask added after the softmax", 6, "Add the mask to the scores, before the softmax.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, mask_mode="after")),
        Mistake("weights zeroed after the softmax", 6, "Zeroing forbidden weights after the softmax leaves rows "
                "that no longer add up to one: add the mask to the scores, before the softmax.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, mask_mode="zeroed")),
        Mistake("mask multiplied instead of added", 6, "The mask is additive: 0 allows a pair, −inf forbids it.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, mask_mode="multiply")),
        Mistake("mask sign flipped", 6, "Add the mask (−inf forbids); subtracting it makes forbidden pairs win.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, mask_mode="flip")),
        Mistake("weights returned transposed", 4, "Return the weights as the softmax made them, (..., n_q, n_k): "
                "one row per query, adding up to one.",
                lambda Q, K, V, mask=None: _weights_transposed(*ref.attention(Q, K, V, mask))),
    ), requirements=(
        Requirement("The output is `(..., n_q, d_v)`", one_sequence_only(ref.attention),
                    docstring="output (..., n_q, d_v)"),
        Requirement("never negative, adding up to one",
                    lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, softmax=_softmax_not_divided)),
        Requirement("`mask`, when given, is additive", "mask multiplied instead of added",
                    docstring="mask: additive"),
        Requirement("broadcasts to `(..., n_q, n_k)`", _attention_mask_by_index,
                    docstring="broadcastable to (..., n_q, n_k)"),
        Requirement("Add the mask in the dtype of the scores", _attention_mask_as_is),
        Requirement("Raise a `ValueError` naming the shapes when `Q` and `K` differ in `d_k`",
                    _attention_by_einsum, docstring="Raises ValueError when Q and K differ in d_k"),
        Requirement("`K` and `V` differ in the number of keys", _attention_of_the_values_it_needs,
                    docstring="K and V in the number of keys"),
        Requirement("when one of `Q`, `K`, `V` has fewer than 2 dimensions", _attention_of_rows,
                    docstring="one has fewer than 2 dimensions"),
    ), shows='The chapter\'s new vector for "cube" is +0.58, -1.08, +0.54, +0.12.'),
    Exercise("permutation_gaps", ref.permutation_gaps, permutation_gaps_hidden, permutation_gaps_visible, stream=44,
             meets=frozenset({"bad shape", "integers"}),
             parts=("attention's gap", "the fixed mix's gap"),
             built_on=("project_qkv", "raw_scores", "scaled_scores", "softmax", "attention"), mistakes=(
        Mistake("the shuffled output compared with the output unshuffled", 1,
                "Put f(X)'s rows where the shuffle puts the tokens, f(X)[perm], before comparing: a token's new "
                "vector should move with it.",
                lambda *a: _gaps(*a, compare="unmoved")),
        Mistake("the output moved by the inverse permutation", 1,
                "Row i of X[perm] is token perm[i]: move f(X)'s rows the same way, f(X)[perm], not by the inverse.",
                lambda *a: _gaps(*a, compare="inverse")),
        Mistake("the queries left in their places", 1,
                "Run attention on the shuffled sentence as a whole: its queries, keys and values all come from X[perm].",
                lambda *a: _gaps(*a, queries_kept=True)),
        Mistake("the kernel applied flipped", 1,
                "kernel[0] weighs the token r places before, kernel[-1] the token r places after: read it that way round.",
                lambda *a: _gaps(*a, flipped=True)),
        Mistake("the fixed mix wrapping round the ends", 1,
                "A neighbour outside the sentence contributes nothing (zero padding): the first token has no token "
                "before it.",
                lambda *a: _gaps(*a, wrap=True)),
        Mistake("the tokens mixed instead of their values", 1, "The fixed mix mixes the values V = X W_v, as attention does.",
                lambda *a: _gaps(*a, tokens_mixed=True)),
    ), requirements=(
        Requirement("computed in float64 whatever the inputs' dtype", lambda *a: _gaps(*a, in_float64=False),
                    docstring="in float64"),
        Requirement("Raise a `ValueError` when `perm` is not a permutation", lambda *a: _gaps(*a, perm_checked=False),
                    docstring="Raises ValueError when perm is not a permutation"),
        Requirement("`kernel` is not one-dimensional with an odd number of weights",
                    lambda *a: _gaps(*a, kernel_checked=False), docstring="kernel is not 1-D of odd length"),
    ), shows='Shuffles of "pick up the cube": attention\'s gap is rounding only; the fixed mix\'s is not.'),
    Exercise("reach", ref.reach, reach_hidden, reach_visible, stream=45,
             meets=frozenset({"float32", "batched", "bad shape", "integers"}), mistakes=(
        Mistake("signed offsets j − i", 1, "A key before the query is as far away as one after it: weigh |i − j|.",
                lambda A: _reach_with(A, signed=True)),
        Mistake("squared distances", 1, "Weigh the distance |i − j| itself, not its square.",
                lambda A: _reach_with(A, power=2)),
        Mistake("summed over the queries", 1,
                "Row i holds query i's weights: add along the keys (the last axis), one number per query.",
                lambda A: _reach_with(A, axis=-2)),
        Mistake("a mean over the keys instead of the weighted sum", 1,
                "The weights already add up to one: Σⱼ A[i, j] · |i − j| is the average; do not divide by n again.",
                lambda A: _reach_with(A, mean=True)),
    ), requirements=(
        Requirement("for a grid of self-attention weights `(..., n, n)`", one_sequence_only(ref.reach)),
        Requirement("returning the `(..., n)` array", lambda A: ref.reach(A)[..., None]),
        Requirement("Float32 stays float32", lambda A: ref.reach(A).astype(np.float64)),
        Requirement("Raise a `ValueError` when `weights` has fewer than two dimensions or its last two differ",
                    lambda A: _reach_with(A, checked=False),
                    docstring="Raises ValueError when weights is not (..., n, n)"),
    ), shows='The worked example\'s weights, the figure\'s convolution, and every token reading "pick" alone.'),
    Exercise("layer_counts", ref.layer_counts, layer_counts_hidden, layer_counts_visible, stream=23,
             parts=("the token grid's size", "one head's score grid size", "all heads' score grids' size"),
             computed_from="one head's score grid size", mistakes=(
        Mistake("heads forgotten", 4, "Every head has its own n × n score grid: n_heads · n² in all.",
                lambda n, d, h: (n * d, n * n, n * n)),
        Mistake("score grid of n × d_k", 4, "A score grid has one number per pair of tokens: n × n, whatever d is.",
                lambda n, d, h: (n * d, n * (d // h), n * d)),
    ), requirements=(
        Requirement("returning a tuple of three Python ints", lambda n, d, h: (n * d, n ** 2.0, h * n ** 2.0),
                    docstring="ints"),
        Requirement("Raise a `ValueError` when a size is not a positive integer", _counts_checked_for,
                    docstring="Raises ValueError on a size that is not a positive int"),
        Requirement("`n_heads` does not divide `d`",
                    lambda n, d, h: _counts_checked_for(n, d, h, division=False),
                    docstring="n_heads does not divide d"),
    ), shows=("The chapter's small language model, 512 tokens of width 768 in 12 heads: your three counts against the\n"
              "numbers the chapter prints for it. Then sizes that must raise a ValueError: 10 heads, which do not divide a\n"
              "width of 768, 0 tokens, and a width given as the float 768.0.")),
)
