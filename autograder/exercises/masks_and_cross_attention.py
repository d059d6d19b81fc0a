"""Notebook 05, masks and cross-attention: causal, padding and group masks, and what they promise."""

from __future__ import annotations

import numpy as np

from autograder.exercises.inputs import f32, normal_draws, worked
from autograder.exercises.spec import (ARRAYS, COUNTS, Exercise, Mistake, Points, Requirement, case, count_edges,
                                       in_integers, one_sequence_only, past_float32)
from solutions import attention as ref

NOTEBOOK = "05_masks_and_cross_attention"

# The robot layout of chapter section 6: picture, words, joint reading, actions.
ROBOT_GROUPS = [256, 12, 1, 8]
ROBOT_ALLOWED = [[True, True, False, False],
                 [True, True, False, False],
                 [True, True, True, False],
                 [True, True, True, True]]


def causal_mask_visible():
    return [case("4 tokens", 4),
            case("0 tokens", 0, raises="ValueError"),
            case("True tokens (a bool is not a count)", True, raises="ValueError")]


def causal_mask_hidden(rng):
    return [case("1 token", 1), case("9 tokens", 9), case("0 tokens", 0, raises="ValueError", checks="bad size"),
            case("-2 tokens", -2, raises="ValueError", checks="bad size"),
            case("True tokens", True, raises="ValueError"), case("4.0 tokens", 4.0, raises="ValueError")] + \
        count_edges((5,), {0: "n"})


def _causal_mask_unchecked(n):
    """causal_mask that takes whatever n NumPy takes: 0 gives an empty grid."""
    return np.triu(np.full((n, n), -np.inf), k=1)


def _refusing_below_one(name, value):
    """The check of a count that refuses a value below 1 only: True (1) and 4.0 get through."""
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")


def _causal_mask_refusing_below_one_only(n):
    _refusing_below_one("n", n)
    return _causal_mask_unchecked(n)


def _nearly_forbidden(n: int, j: int) -> np.ndarray:
    """(n, n) causal mask that lets the tokens before j see token j at −25: a weight near e⁻²⁵, not 0."""
    mask = ref.causal_mask(n)
    mask[:j, j] = -25.0
    return mask


def _padding_hidden_both_ways(length: int, n: int) -> np.ndarray:
    """(n, n) mask forbidding every pair with a padding token in it: its key for every query, and the
    whole row of a padding query (all zeros out), so nothing a padding token holds reaches any output."""
    padding = np.arange(n) >= length
    return np.where(padding[:, None] | padding[None, :], -np.inf, 0.0)


def first_changed_output_visible():
    w = worked()
    return [case("the worked example, token 2 changed, causal mask", w.X, w.W_q, w.W_k, w.W_v, 2,
                 mask=ref.causal_mask(4)),
            case("the worked example, token 2 changed, no mask", w.X, w.W_q, w.W_k, w.W_v, 2),
            case("every size different: 5 tokens of width 4, d_k = 2, d_v = 6, token 3 changed, causal mask",
                 np.vstack([w.X, w.X[:1] + 1]), w.W_q[:, :2], w.W_k[:, :2], np.hstack([w.W_v, w.W_v[:, :2]]), 3,
                 mask=ref.causal_mask(5)),
            case("'cube' changed while it is padding, its own row forbidden too: no output row changes",
                 w.X, w.W_q, w.W_k, w.W_v, 3, mask=_padding_hidden_both_ways(3, 4)),
            case("token 2 changed, the tokens before it see it at −25 (nearly forbidden, not forbidden)",
                 w.X, w.W_q, w.W_k, w.W_v, 2, mask=_nearly_forbidden(4, 2)),
            case("position −1", w.X, w.W_q, w.W_k, w.W_v, -1, raises="ValueError")]


def first_changed_output_hidden(rng):
    n = normal_draws(rng)

    def W():
        return n(6, 6, scale=0.5)

    return [
        case("one number per token, values = the tokens: token 0's own output only goes up, causal mask",
             np.array([[1.0], [2.0], [3.0]]), np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)), 0,
             mask=ref.causal_mask(3)),
        case("token 3 of 7 changed, causal mask", n(7, 6), W(), W(), W(), 3, mask=ref.causal_mask(7)),
        case("token 5 of 6 changed, no mask", n(6, 6), W(), W(), W(), 5),
        case("the last real token of 4 changed under a padding mask of length 4 in 6",
             n(6, 6), W(), W(), W(), 3, mask=ref.padding_mask(np.array([4]), 6)[0]),
        case("a padding token changed under a padding mask (nothing real may see it)",
             n(6, 6), W(), W(), W(), 5, mask=ref.padding_mask(np.array([4]), 6)[0]),
        case("a padding token changed, every pair with padding in it forbidden: no output changes",
             n(6, 6), W(), W(), W(), 4, mask=_padding_hidden_both_ways(4, 6)),
        case("a mask that lets each token see one token ahead", n(6, 6), W(), W(), W(), 4,
             mask=np.triu(np.full((6, 6), -np.inf), k=2)),
        case("token 0 changed, causal mask", n(5, 6), W(), W(), W(), 0, mask=ref.causal_mask(5)),
        case("token 4 of 6 changed, the tokens before it see it at −25", n(6, 6), W(), W(), W(), 4,
             mask=_nearly_forbidden(6, 4)),
        case("a position past the end", n(4, 6), W(), W(), W(), 4, raises="ValueError"),
        case("position −1", n(4, 6), W(), W(), W(), -1, raises="ValueError"),
        case("position True", n(4, 6), W(), W(), W(), True, raises="ValueError"),
        case("a position two past the end", n(4, 6), W(), W(), W(), 6, raises="ValueError"),
        case("position 2.0, a float", n(4, 6), W(), W(), W(), 2.0, raises="ValueError"),
        case("values of one column of negative weights: every output that changes goes down", n(5, 6),
             n(6, 6, scale=0.05), n(6, 6, scale=0.05), -1 - np.abs(n(6, 1)), 2, mask=ref.causal_mask(5)),
        case("integers past 2²⁵, where float32 holds every fourth only: token 2 of 4 changed", past_float32(n(4, 6)),
             n(6, 6, scale=1e-8), n(6, 6, scale=1e-8), W(), 2, mask=ref.causal_mask(4), checks="integers"),
    ]


def _checked_position(X, j) -> None:
    n = np.shape(X)[0]
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < n:
        raise ValueError(f"j must be an integer position between 0 and {n - 1}, got {j!r}")


def _changed_rows(X, W_q, W_k, W_v, j, mask=None, *, checked=True, column=False, close=False):
    """(n,) booleans: which output rows change when 1.0 is added to token j (to column j with
    `column`), compared exactly (with np.isclose's tolerance when `close`); j unchecked unless `checked`."""
    if checked:
        _checked_position(X, j)
    X = np.asarray(X, dtype=np.float64)
    changed = X.copy()
    if column:
        changed[:, j] += 1.0
    else:
        changed[j] += 1.0
    before, _ = ref.attention(*ref.project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = ref.attention(*ref.project_qkv(changed, W_q, W_k, W_v), mask)
    return ~np.isclose(before, after).all(axis=-1) if close else (before != after).any(axis=-1)


def _first(rows: np.ndarray) -> int:
    """The first True row, or the number of rows when none is."""
    found = np.flatnonzero(rows)
    return int(found[0]) if found.size else len(rows)


def _first_changed_in_place(X, W_q, W_k, W_v, j, mask=None):
    """first_changed_output that adds the 1.0 to the caller's own X (np.asarray copies nothing)."""
    _checked_position(X, j)
    X = np.asarray(X)
    before, _ = ref.attention(*ref.project_qkv(X, W_q, W_k, W_v), mask)
    X[j] += 1.0
    after, _ = ref.attention(*ref.project_qkv(X, W_q, W_k, W_v), mask)
    return _first((before != after).any(axis=-1))


def _first_changed_as_a_float(X, W_q, W_k, W_v, j, mask=None):
    """The smallest changed position found by a minimum with np.inf for every unchanged row: a float."""
    rows = _changed_rows(X, W_q, W_k, W_v, j, mask)
    first = np.where(rows, np.arange(len(rows)), np.inf).min()
    return len(rows) if np.isinf(first) else first


def _trusting_the_promise(X, W_q, W_k, W_v, j, mask=None):
    """Returns j without running attention: a later token is taken never to change an earlier output."""
    _checked_position(X, j)
    return j


def padding_mask_visible():
    return [case("lengths 4 and 2 in a grid of 4", np.array([4, 2]), 4),
            case("n given as 4.0", np.array([4, 2]), 4.0, raises="ValueError"),
            case("lengths given as the floats 4.0 and 2.0", np.array([4.0, 2.0]), 4, raises="ValueError"),
            case("a length of 0", np.array([4, 0]), 4, raises="ValueError"),
            case("a length of 5 in a grid of 4", np.array([4, 5]), 4, raises="ValueError")]


def padding_mask_hidden(rng):
    return [case("lengths 3, 7, 1 in a grid of 7", np.array([3, 7, 1]), 7),
            case("one sequence of full length 5", np.array([5]), 5),
            case("a length of 0", np.array([3, 0]), 4, raises="ValueError", checks="bad size"),
            case("lengths as a (2, 1) column", np.array([[3], [2]]), 4, raises="ValueError", checks="bad shape"),
            case("n = True", np.array([1]), True, raises="ValueError"),
            case("n = 0", np.array([1]), 0, raises="ValueError", checks="bad size"),
            case("lengths given as floats", np.array([3.0, 1.0]), 5, raises="ValueError"),
            case("no lengths at all", np.array([], dtype=int), 5, raises="ValueError"),
            case("a length of 8 in a grid of 7", np.array([3, 8]), 7, raises="ValueError")] + \
        count_edges((np.array([1, 1]), 3), {1: "n"}) + [
            case("lengths 3 and 2 in a grid of 5: no sequence fills it", np.array([3, 2]), 5),
            case("lengths as 8-bit unsigned integers", np.array([2, 4], dtype=np.uint8), 4),
            case("one length as a 0-d array", np.array(3), 4, raises="ValueError", checks="bad shape")]


def _padding_mask_checking(lengths, n, *, n_checked=True, form_checked=True, range_checked=True):
    """padding_mask with some of its checks left out: NumPy takes what comes (n = 4.0, float lengths...)."""
    if n_checked and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1):
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lengths = np.asarray(lengths)
    if form_checked and (lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu"):
        raise ValueError(f"lengths must be a non-empty 1-D integer array, got {lengths!r}")
    if range_checked and lengths.size and (lengths.min() < 1 or lengths.max() > n):
        raise ValueError(f"each length must lie between 1 and n = {n}, got {lengths.tolist()}")
    return np.where(np.arange(n)[None, :] >= lengths[:, None], -np.inf, 0.0)[:, None, :]


def _padding_at_the_front(lengths, n):
    """padding_mask that forbids the first n − length positions: the filler put before the sentence."""
    ref.padding_mask(lengths, n)  # its checks
    lengths = np.asarray(lengths)
    return np.where(np.arange(n)[None, :] < n - lengths[:, None], -np.inf, 0.0)[:, None, :]


def padding_leak_visible():
    w = worked()
    cube_is_padding = ref.padding_mask(np.array([3]), 4)
    _, weights = ref.attention(w.Q, w.K, w.V)
    _, padded_weights = ref.attention(w.Q, w.K, w.V, cube_is_padding[0])
    _, causal_weights = ref.attention(w.Q, w.K, w.V, ref.causal_mask(4))
    return [case("'cube' as padding, no mask (the chapter: 'up' puts 0.681 on it)", weights[None], np.array([3])),
            case("'cube' as padding, with the padding mask", padded_weights[None], np.array([3])),
            case("'cube' as padding, a causal mask alone (only the padding query 'cube' reads 'cube')",
                 causal_weights[None], np.array([3])),
            case("'cube' as padding, no mask, float32 weights", weights[None].astype(f32), np.array([3])),
            case("a batch of 2: the weights with no mask, length 4, and with 'cube' as padding, length 3",
                 np.stack([weights, padded_weights]), np.array([4, 3])),
            case("weights with a head axis, (2, 1, 4, 4)", np.stack([weights[None]] * 2), np.array([3]),
                 raises="ValueError"),
            case("a length of 0", weights[None], np.array([0]), raises="ValueError"),
            case("a length given as the float 3.0", weights[None], np.array([3.0]), raises="ValueError")]


def padding_leak_hidden(rng):
    n = normal_draws(rng)
    X = n(3, 8, 4)
    Q, K, V = (X @ n(4, 4) for _ in range(3))
    lengths = np.array([8, 5, 2])
    _, unmasked = ref.attention(Q, K, V)
    _, masked = ref.attention(Q, K, V, ref.padding_mask(lengths, 8))
    _, causal = ref.attention(Q, K, V, ref.causal_mask(8))
    _, off_by_one = ref.attention(Q, K, V, ref.padding_mask(np.minimum(lengths + 1, 8), 8))
    return [case("lengths 8, 5, 2, no mask: the short sequences leak most", unmasked, lengths),
            case("lengths 8, 5, 2, with the padding mask", masked, lengths),
            case("a causal mask alone: real tokens never see the padding after them", causal, lengths),
            case("a padding mask off by one", off_by_one, lengths),
            case("float32 weights", unmasked.astype(f32), lengths),
            case("a length of 0", unmasked, np.array([8, 0, 2]), raises="ValueError"),
            case("a length of 9 for 8 tokens", unmasked, np.array([8, 9, 2]), raises="ValueError"),
            case("lengths given as floats", unmasked, lengths.astype(float), raises="ValueError"),
            case("weights of 2 heads, (2, 3, 8, 8)", np.stack([unmasked, masked]), lengths, raises="ValueError"),
            case("the weights of one sequence, (8, 8)", unmasked[0], np.array([5]), raises="ValueError"),
            case("a sequence of length 1", unmasked, np.array([8, 1, 2])),
            case("lengths as 8-bit unsigned integers", unmasked, lengths.astype(np.uint8)),
            case("one length for a batch of 3", unmasked, np.array([5]), raises="ValueError", checks="bad shape"),
            case("3 lengths for a batch of 1", unmasked[:1], lengths, raises="ValueError", checks="bad shape"),
            case("weights (3, 8, 1): one key each", unmasked[..., :1], np.array([1, 1, 1]), raises="ValueError",
                 checks="bad shape"),
            case("weights (3, 1, 8): one query each", unmasked[:, :1], np.array([1, 1, 1]), raises="ValueError",
                 checks="bad shape"),
            case("300 tokens, lengths 300 and 120", ref.softmax(n(2, 300, 300)), np.array([300, 120]))]


def _padding_leak_with(weights, lengths, *, every_query=False, mean=False):
    """The leak in weights' float dtype, unchecked: over every query with `every_query`, the mean over
    the real queries with `mean` (the catalogued mistakes), else right."""
    weights, lengths = np.asarray(weights), np.asarray(lengths)
    weights = weights if weights.dtype.kind == "f" else weights.astype(np.float64)
    n = weights.shape[-1]
    position = np.arange(n)
    on_padding = np.where(position[None, None, :] >= lengths[:, None, None], weights, 0.0).sum(axis=-1)
    real = np.ones_like(on_padding, dtype=bool) if every_query else position[None, :] < lengths[:, None]
    if mean:
        leak = np.where(real, on_padding, 0.0).sum(axis=-1) / real.sum(axis=-1)
    else:
        leak = np.where(real, on_padding, 0.0).max(axis=-1)
    return leak.astype(weights.dtype)


def _padding_leak_checking(weights, lengths, *, shape_checked=True, integers_checked=True, range_checked=True):
    """padding_leak with some of its checks left out: NumPy broadcasts a head axis, float lengths compare."""
    weights, lengths = np.asarray(weights), np.asarray(lengths)
    if shape_checked and (weights.ndim != 3 or weights.shape[1] != weights.shape[2]
                          or lengths.shape != weights.shape[:1]):
        raise ValueError(f"weights must be (b, n, n) with one length each, got {weights.shape} and {lengths.shape}")
    if integers_checked and lengths.dtype.kind not in "iu":
        raise ValueError(f"lengths must be integers, got {lengths!r}")
    if range_checked and ((lengths < 1).any() or (lengths > weights.shape[-1]).any()):
        raise ValueError(f"lengths must lie between 1 and n, got {lengths!r}")
    return _padding_leak_with(weights, lengths)


def block_mask_visible():
    robot = np.array(ROBOT_GROUPS), np.array(ROBOT_ALLOWED)
    return [case("the robot layout (256, 12, 1, 8 tokens)", *robot),
            case("the robot layout with a group of 0 tokens", np.array([256, 12, 0, 8]), robot[1],
                 raises="ValueError"),
            case("the robot layout's allowed table written with 0s and 1s", robot[0], robot[1].astype(int),
                 raises="ValueError"),
            case("a 5 × 5 allowed table for the robot's 4 groups", robot[0], np.ones((5, 5), dtype=bool),
                 raises="ValueError")]


def block_mask_hidden(rng):
    return [case("three groups, each may see itself and earlier groups", np.array([2, 3, 1]),
                 np.array([[True, False, False], [True, True, False], [True, True, True]])),
            case("two groups that only see each other", np.array([3, 2]), np.array([[False, True], [True, False]])),
            case("an allowed table of 2 groups for 3", np.array([2, 3, 1]), np.ones((2, 2), dtype=bool),
                 raises="ValueError", checks="bad shape"),
            case("a group of 0 tokens", np.array([2, 0]), np.ones((2, 2), dtype=bool), raises="ValueError",
                 checks="bad size"),
            case("an allowed table of 3 groups for 2", np.array([2, 3]), np.ones((3, 3), dtype=bool),
                 raises="ValueError", checks="bad shape"),
            case("an allowed table of 0s and 1s", np.array([1, 2]), np.array([[1, 0], [1, 1]]), raises="ValueError"),
            case("group sizes as a (2, 1) column", np.array([[2], [1]]), np.ones((2, 2), dtype=bool),
                 raises="ValueError", checks="bad shape"),
            case("no groups at all", np.array([], dtype=int), np.ones((0, 0), dtype=bool), raises="ValueError"),
            case("one group of 5 that sees itself", np.array([5]), np.array([[True]])),
            case("group sizes as 8-bit unsigned integers", np.array([1, 3], dtype=np.uint8),
                 np.array([[True, False], [True, True]])),
            case("group sizes given as the floats 2.0 and 1.0", np.array([2.0, 1.0]), np.ones((2, 2), dtype=bool),
                 raises="ValueError"),
            case("one group size as a 0-d array", np.array(3), np.ones((1, 1), dtype=bool), raises="ValueError",
                 checks="bad shape")]


def _block_mask_checking(group_sizes, allowed, *, sizes_checked=True, allowed_checked=True):
    """block_mask with a check left out: np.repeat takes a group of 0, fancy indexing a table of 0s and 1s."""
    sizes, allowed = np.asarray(group_sizes), np.asarray(allowed)
    if sizes_checked and (sizes.ndim != 1 or sizes.size == 0 or sizes.dtype.kind not in "iu" or (sizes < 1).any()):
        raise ValueError(f"group_sizes must be a non-empty 1-D array of positive integers, got {sizes.tolist()}")
    if allowed_checked and (allowed.dtype != bool or allowed.shape != (sizes.size, sizes.size)):
        raise ValueError(f"allowed must be ({sizes.size}, {sizes.size}) booleans, got {allowed.shape} {allowed.dtype}")
    group = np.repeat(np.arange(sizes.size), sizes)
    return np.where(allowed[group[:, None], group[None, :]], 0.0, -np.inf)


# The worked example as a prompt: "pick up" from the user (source 0), "the cube" from a web page (source 1).
USER_AND_PAGE = np.array([0, 0, 1, 1])


def source_shares_visible():
    w = worked()
    _, plain = ref.attention(w.Q, w.K, w.V)
    _, causal = ref.attention(w.Q, w.K, w.V, ref.causal_mask(4))
    pick_reads_nothing = np.zeros((4, 4))
    pick_reads_nothing[0] = -np.inf
    _, nothing_for_pick = ref.attention(w.Q, w.K, w.V, pick_reads_nothing)
    return [case("the worked example, no mask, 'pick up' from the user and 'the cube' from a web page",
                 plain, USER_AND_PAGE),
            case("the worked example, causal mask", causal, USER_AND_PAGE),
            case("e to each scaled score of the worked example (rows that do not add up to 1)", np.exp(w.S),
                 USER_AND_PAGE),
            case("'pick' may read no key (its row of weights all 0)", nothing_for_pick, USER_AND_PAGE),
            case("a batch of two, (2, 4, 4): no mask and the causal mask", np.stack([plain, causal]), USER_AND_PAGE),
            case("float32 weights", plain.astype(f32), USER_AND_PAGE),
            case("ids 0 and 2 only ('the cube' from source 2)", plain, np.array([0, 0, 2, 2])),
            case("3 sources asked for, ids 0 and 1 only", plain, USER_AND_PAGE, n_sources=3),
            case("3 ids for 4 keys", plain, np.array([0, 0, 1]), raises="ValueError"),
            case("a negative id", plain, np.array([0, -1, 1, 1]), raises="ValueError"),
            case("ids given as floats", plain, USER_AND_PAGE.astype(float), raises="ValueError"),
            case("n_sources = 1 with an id of 1", plain, USER_AND_PAGE, n_sources=1, raises="ValueError"),
            case("the weights of one query, 1-D", plain[0], USER_AND_PAGE, raises="ValueError")]


def source_shares_hidden(rng):
    n = normal_draws(rng)
    X, W_q, W_k, W_v = n(7, 4), n(4, 4), n(4, 4), n(4, 4)
    Q, K, V = ref.project_qkv(X, W_q, W_k, W_v)
    answer_reads_no_page = ref.block_mask(np.array([3, 2, 2]), np.array([[True, False, False], [True, True, False],
                                                                          [True, False, True]]))
    _, blocked = ref.attention(Q, K, V, ref.causal_mask(7) + answer_reads_no_page)
    three = np.array([0, 0, 0, 1, 1, 2, 2])
    silent = n(5, 6)
    silent[[1, 3]] = -np.inf
    weights = ref.softmax(n(5, 7))
    return [
        case("2 × 3 grids of 5 queries over 7 keys from 3 sources", ref.softmax(n(2, 3, 5, 7)),
             np.array([0, 1, 2, 0, 1, 2, 1]), checks="batched"),
        case("float32, 6 queries over 8 keys", ref.softmax(n(6, 8, dtype=f32)), np.array([0, 0, 0, 1, 1, 1, 2, 2]),
             checks="float32"),
        case("ids 0 and 3 only: sources 1 and 2 have no key", ref.softmax(n(5, 6)), np.array([0, 3, 3, 0, 3, 0])),
        case("5 sources asked for, ids 0 to 2", weights, np.array([2, 0, 1, 1, 0, 2, 0]), n_sources=5),
        case("e to each score: rows that do not add up to 1", np.exp(n(4, 6)), np.array([1, 0, 1, 0, 0, 2])),
        case("the answer masked off the page: instructions 3, page 2, answer 2", blocked, three),
        case("queries 1 and 3 may read nothing", ref.softmax(silent), np.array([0, 1, 0, 1, 1, 0])),
        case("3 queries over 9 keys of 2 sources", ref.softmax(n(3, 9)), np.array([1, 1, 0, 0, 1, 0, 1, 1, 1])),
        case("6 ids for 7 keys", weights, np.array([0, 1, 2, 0, 1, 2]), raises="ValueError", checks="bad shape"),
        case("8 ids for 7 keys", weights, np.array([0, 1, 2, 0, 1, 2, 1, 0]), raises="ValueError", checks="bad shape"),
        case("source as a (1, 7) row", weights, three[None], raises="ValueError", checks="bad shape"),
        case("an id of −2", weights, np.array([0, 1, -2, 0, 1, 2, 1]), raises="ValueError"),
        case("ids given as floats", weights, three.astype(float), raises="ValueError"),
        case("n_sources = 2 with an id of 2", weights, three, n_sources=2, raises="ValueError"),
        case("n_sources = 0", weights, np.zeros(7, dtype=int), n_sources=0, raises="ValueError", checks="bad size"),
        case("n_sources = 3.0", weights, three, n_sources=3.0, raises="ValueError"),
        case("the weights of one query, 1-D", weights[0], three, raises="ValueError", checks="bad shape"),
        case("ids 1 and 2 only: source 0 has no key", weights, three + 1),
        case("ids as 8-bit unsigned integers", weights, three.astype(np.uint8)),
        case("no keys at all, n_sources = 0", np.zeros((4, 0)), np.zeros(0, dtype=int), n_sources=0,
             raises="ValueError", checks="bad size"),
        case("n_sources = 2 with an id of 3", weights, np.array([0, 1, 3, 0, 1, 0, 1]), n_sources=2,
             raises="ValueError"),
        case("an id of −1", weights, np.array([0, 1, -1, 0, 1, 2, 1]), raises="ValueError"),
        case("one key, its id as a 0-d array", weights[:, :1], np.array(0), raises="ValueError", checks="bad shape"),
        case("one key, its id as a (1, 1) grid", weights[:, :1], np.zeros((1, 1), dtype=int), raises="ValueError",
             checks="bad shape"),
        case("300 keys of 2 sources", ref.softmax(n(3, 300)), np.arange(300) % 2),
        in_integers(case("e to each score: rows that do not add up to 1", np.exp(n(4, 6)), np.array([1, 0, 1, 0, 0, 2])),
                    np.uint8),
    ] + count_edges((weights, np.zeros(7, dtype=int), 3), {2: "n_sources"})


def _float_weights(weights) -> np.ndarray:
    weights = np.asarray(weights)
    return weights if weights.dtype.kind == "f" else weights.astype(np.float64)


def _summed_by_source(weights, source, n_sources) -> np.ndarray:
    """(..., n_q, n_sources) in weights' float dtype: the weight each query gives each source's keys, not divided."""
    weights, source = _float_weights(weights), np.asarray(source)
    return weights @ (source[:, None] == np.arange(n_sources)[None, :]).astype(weights.dtype)


def _divided(part, whole) -> np.ndarray:
    return np.divide(part, whole, out=np.zeros_like(part), where=whole > 0)


def _sources(source, n_sources) -> int:
    return int(np.max(source)) + 1 if n_sources is None else n_sources


def _tokens_counted(weights, source, n_sources=None):
    """The share of the keys each query reads (weight above 0) that come from each source: counted, not weighed."""
    ref.source_shares(weights, source, n_sources)  # its checks
    weights = _float_weights(weights)
    return ref.source_shares((weights > 0).astype(weights.dtype), source, n_sources)


def _summed_over_queries(weights, source, n_sources=None):
    """Every query given the shares of all the queries' weight together (the query axis summed)."""
    shares = ref.source_shares(weights, source, n_sources)
    return np.broadcast_to(ref.source_shares(_float_weights(weights).sum(axis=-2, keepdims=True), source, n_sources),
                           shares.shape).copy()


def _divided_per_source(weights, source, n_sources=None):
    """Each source's column divided by its total over the queries, not each row by its own total."""
    ref.source_shares(weights, source, n_sources)  # its checks
    summed = _summed_by_source(weights, source, _sources(source, n_sources))
    return _divided(summed, summed.sum(axis=-2, keepdims=True))


def _present_sources_only(weights, source, n_sources=None):
    """A column for each id that some key has (np.unique), none for a source without keys; n_sources unused."""
    ref.source_shares(weights, source, n_sources)  # its checks
    weights, source = _float_weights(weights), np.asarray(source)
    summed = np.stack([weights[..., source == s].sum(axis=-1) for s in np.unique(source)], axis=-1)
    return _divided(summed, weights.sum(axis=-1, keepdims=True))


def _shares_divided_plainly(weights, source, n_sources=None):
    """source_shares divided by the row totals with a plain `/`: 0 / 0 gives NaN for a row without weight."""
    shares = ref.source_shares(weights, source, n_sources)  # its checks
    with np.errstate(invalid="ignore"):
        total = _float_weights(weights).sum(axis=-1, keepdims=True)
        return _summed_by_source(weights, source, shares.shape[-1]) / total


def _shares_checking(weights, source, n_sources=None, *, weights_checked=True, integers_checked=True,
                     negative_checked=True, count_checked=True, length_checked=True):
    """source_shares with a check left out, computed as an answer without that check would compute it:
    1-D weights taken as one query, float ids made integers, a negative id counted from the end
    (np.eye(n)[id]), too small an n_sources widened, and a short source read key by key (the keys
    past its end left out), a source of other than one axis read flattened."""
    weights, source = _float_weights(weights), np.asarray(source)
    if weights_checked and weights.ndim < 2:
        raise ValueError(f"weights must be (..., n_q, n_k), got shape {weights.shape}")
    weights = np.atleast_2d(weights)
    if integers_checked and source.dtype.kind not in "iu":
        raise ValueError(f"source must hold integers, got {source.dtype}")
    source = source.astype(np.int64) if length_checked else source.astype(np.int64).reshape(-1)
    if source.ndim != 1 or (length_checked and source.shape[0] != weights.shape[-1]):
        raise ValueError(f"source must be 1-D with one id per key, got shape {source.shape}")
    if negative_checked and (source < 0).any():
        raise ValueError(f"source ids must be 0 or more, got {source.tolist()}")
    n = int(source.max()) + 1 if n_sources is None else n_sources
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n_sources must be a positive integer, got {n!r}")
    if source.max() >= n:
        if count_checked:
            raise ValueError(f"n_sources = {n} must be larger than every id")
        n = int(source.max()) + 1
    summed = np.zeros((*weights.shape[:-1], n), dtype=weights.dtype)
    for j, s in enumerate(source):
        summed[..., s] += weights[..., j]  # a negative s counts from the end
    return _divided(summed, weights.sum(axis=-1, keepdims=True))


# A mask written with a large finite number: exp(−1e9 + s) is 0 only by underflow, and a row of it
# is not all forbidden (softmax spreads the weight evenly instead of giving zeros).
_MINUS_1E9 = Mistake("−1e9 written for −inf", 6, "Forbid a pair with −inf (np.inf), not a large finite number: "
                     "only −inf gives a weight of exactly 0, and an all-forbidden row all zeros.", None)


def _times_minus_inf(n: int) -> np.ndarray:
    """A causal mask written as −inf × triu(ones, 1): NaN where it should be 0."""
    with np.errstate(invalid="ignore"):
        return -np.inf * np.triu(np.ones((n, n)), k=1)


def _finite(mask):
    """The mask with −1e9 in place of every −inf."""
    return np.where(np.isneginf(mask), -1e9, mask)


_KEEP_MASK = Mistake("a keep-mask: 1 allows a pair, 0 forbids it", 6,
                     "That mask multiplies the weights; this one is added to the scores: 0 allows a pair and −inf "
                     "forbids it.", None)


def _kept(mask):
    """The mask as ones where it allows a pair and zeros where it forbids one."""
    return np.isfinite(mask).astype(np.float64)


EXERCISES = (
    Exercise("causal_mask", ref.causal_mask, causal_mask_hidden, causal_mask_visible, stream=11,
             meets=COUNTS, mistakes=(
        _MINUS_1E9._replace(variant=lambda n: _finite(ref.causal_mask(n))),
        Mistake("causal mask off by one: diagonal forbidden", 6, "A token may see itself: forbid only j > i.",
                lambda n: np.triu(np.full((n, n), -np.inf), k=0)),
        Mistake("causal mask off by one: one future token allowed", 6, "Forbid every j > i, including j = i + 1.",
                lambda n: np.triu(np.full((n, n), -np.inf), k=2)),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.", lambda n: -ref.causal_mask(n)),
        Mistake("mask transposed", 6, "Forbid the future (above the diagonal), not the past.",
                lambda n: ref.causal_mask(n).T.copy()),
        Mistake("boolean mask instead of additive", 6, "Return 0 for allowed and −inf for forbidden pairs, as floats.",
                lambda n: np.isinf(ref.causal_mask(n)).astype(np.float64)),
        _KEEP_MASK._replace(variant=lambda n: _kept(ref.causal_mask(n))),
        Mistake("−inf times a grid of 0s and 1s", 6, "−inf × 0 is NaN, not 0: choose between 0 and −inf instead "
                "(`np.where(allowed, 0.0, -np.inf)`).", lambda n: _times_minus_inf(n)),
    ), requirements=(
        Requirement("A token must not see the tokens that come after it",
                    "causal mask off by one: one future token allowed",
                    docstring=("Forbid each query from seeing the keys after it", "0 where j <= i")),
        Requirement("the `(n, n)` float64 mask", lambda n: ref.causal_mask(n).astype(np.float32),
                    docstring="Returns (n, n) float64"),
        Requirement("is −∞ when key `j` comes after query `i` (`j > i`) and 0 otherwise", _MINUS_1E9.name,
                    docstring="-inf where j > i"),
        Requirement("Raise a `ValueError` when `n` is not a positive integer", _causal_mask_unchecked,
                    docstring="Raises ValueError when n is not a positive integer"),
        Requirement("(a Python or NumPy int; `True` does not count)", _causal_mask_refusing_below_one_only),
    ), shows="causal_mask(4) is 0 on and below the diagonal and -inf above it; n = 0 and n = True raise a ValueError."),
    Exercise("first_changed_output", ref.first_changed_output, first_changed_output_hidden,
             first_changed_output_visible, stream=25, points=Points(1, 2), meets=frozenset({"integers"}),
             built_on=("project_qkv", "raw_scores", "scaled_scores", "softmax", "attention"), mistakes=(
        Mistake("the last unchanged position", 6, "Return the first position that changed, not the one before it.",
                lambda *a, **k: int(np.argmax(_changed_rows(*a, **k))) - 1 if _changed_rows(*a, **k).any()
                else len(a[0]) - 1),
        Mistake("how many outputs changed", 6, "Return the first position whose output changed, not the count.",
                lambda *a, **k: int(_changed_rows(*a, **k).sum())),
    ), requirements=(
        Requirement("so changing a later token never changes an earlier output", _trusting_the_promise),
        Requirement("the smallest position `i` whose output row differs from before", "the last unchanged position",
                    docstring=("The first output position that changes when token j changes",
                               "the smallest i whose output row changes")),
        Requirement("add 1.0 to every number of token `j`",
                    lambda *a, **k: _first(_changed_rows(*a, **k, column=True)),
                    docstring="1.0 is added to every number of token j"),
        Requirement("never change the caller's `X`", _first_changed_in_place),
        Requirement("Return, as a Python int, the smallest position `i`", _first_changed_as_a_float),
        Requirement("(exact comparison: a forbidden pair contributes exactly nothing)",
                    lambda *a, **k: _first(_changed_rows(*a, **k, close=True))),
        Requirement("or `n` when no row changed", lambda *a, **k: int(np.argmax(_changed_rows(*a, **k))),
                    docstring="n when no output changes"),
        Requirement("Raise a `ValueError` when `j` is not an integer position of `X`",
                    lambda *a, **k: _first(_changed_rows(*a, **k, checked=False)),
                    docstring="Raises ValueError when j is not an integer between 0 and n - 1"),
    ), shows=('Changing "the" (token 2) changes outputs 2 and 3 under the causal mask, and all four without it.\n'
              'Also: "cube" changed while every pair with it is forbidden (no row changes), "the" nearly forbidden\n'
              "at -25 (not forbidden: its weight is tiny, not 0), and j = -1 (a ValueError).")),
    Exercise("padding_mask", ref.padding_mask, padding_mask_hidden, padding_mask_visible, stream=12,
             meets=COUNTS | frozenset({"bad shape"}), mistakes=(
        _MINUS_1E9._replace(variant=lambda lengths, n: _finite(ref.padding_mask(lengths, n))),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda lengths, n: -ref.padding_mask(lengths, n)),
        Mistake("padding mask off by one", 6, "Position `length` itself is padding: forbid j ≥ length.",
                lambda lengths, n: ref.padding_mask(np.minimum(np.asarray(lengths) + 1, n), n)),
        _KEEP_MASK._replace(variant=lambda lengths, n: _kept(ref.padding_mask(lengths, n))),
    ), requirements=(
        Requirement("the short ones are filled up at the end", _padding_at_the_front),
        Requirement("return a float64 array of shape `(b, 1, n)`", lambda lengths, n: ref.padding_mask(lengths, n)[:, 0],
                    docstring="Returns (b, 1, n) float64"),
        Requirement("with −∞ at the key positions", _MINUS_1E9.name, docstring="-inf at key positions"),
        Requirement("`j >= lengths[k]` of sequence `k`", "padding mask off by one", docstring="j >= lengths[k]"),
        Requirement("Raise a `ValueError` when `n` is not a positive integer",
                    lambda lengths, n: _padding_mask_checking(lengths, n, n_checked=False),
                    docstring="Raises ValueError on a bad n"),
        Requirement("when `lengths` is not a non-empty 1-D array of integers",
                    lambda lengths, n: _padding_mask_checking(lengths, n, form_checked=False),
                    docstring=("lengths: (b,) integers", "bad lengths")),
        Requirement("or when a length is outside 1 … `n`",
                    lambda lengths, n: _padding_mask_checking(lengths, n, range_checked=False),
                    docstring="each between 1 and n"),
    ), shows=("Lengths 4 and 2 in a grid of 4 give shape (2, 1, 4); only the second sequence loses keys.\n"
              "n = 4.0, lengths as floats and a length of 0 or 5 raise a ValueError.")),
    Exercise("padding_leak", ref.padding_leak, padding_leak_hidden, padding_leak_visible, stream=26,
             meets=frozenset({"integers"}),
             points=Points(1, 2), mistakes=(
        Mistake("padding queries counted too", 6, "Only real queries (i < length) matter: padding rows are thrown away.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, every_query=True)),
        Mistake("mean instead of the largest", 6, "Take the largest leak over the real queries: one bad row is enough.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, mean=True)),
    ), requirements=(
        Requirement("`lengths` the `(b,)` true lengths (integers from 1 to `n`)",
                    lambda weights, lengths: _padding_leak_checking(weights, lengths, integers_checked=False),
                    docstring="lengths: (b,) ints"),
        Requirement("Return those `b` numbers in weights' float dtype",
                    lambda weights, lengths: ref.padding_leak(weights, lengths).astype(np.float64),
                    docstring="Returns (b,) in weights' float dtype"),
        Requirement("Padding queries do not count", "padding queries counted too",
                    docstring="a query i < lengths[k]"),
        Requirement("Raise a `ValueError` when `weights` is not `(b, n, n)`",
                    lambda weights, lengths: _padding_leak_checking(weights, lengths, shape_checked=False),
                    docstring="Raises ValueError on bad shapes"),
        Requirement("or a length is not an integer from 1 to `n`",
                    lambda weights, lengths: _padding_leak_checking(weights, lengths, range_checked=False)),
    ), shows=('With "cube" as padding and no mask, "up" puts 0.681 of its weight on it; with the mask, nothing.\n'
              'Also: a causal mask alone (only the padding query reads "cube"), float32 weights, and bad\n'
              "inputs that must raise a ValueError (a head axis, a length of 0, a length of 3.0).")),
    Exercise("block_mask", ref.block_mask, block_mask_hidden, block_mask_visible, stream=13,
             meets=COUNTS | frozenset({"bad shape"}), points=Points(1, 2),
             mistakes=(
        _MINUS_1E9._replace(variant=lambda sizes, allowed: _finite(ref.block_mask(sizes, allowed))),
        Mistake("allowed read by column", 6, "allowed[a][b] says whether group a (the row, asking) may look at group b.",
                lambda sizes, allowed: ref.block_mask(sizes, np.asarray(allowed).T)),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda sizes, allowed: -ref.block_mask(sizes, allowed)),
    ), requirements=(
        Requirement("`allowed[a, b]` says whether tokens of group `a` may look at tokens of group `b`",
                    "allowed read by column", docstring="allowed[a, b] is True when group a may look at group b"),
        Requirement("Return the `(N, N)` float64 mask",
                    lambda sizes, allowed: ref.block_mask(sizes, allowed).astype(np.float32),
                    docstring="Returns (N, N) float64"),
        Requirement("−∞ where not", _MINUS_1E9.name, docstring="-inf where not"),
        Requirement("Raise a `ValueError` when `group_sizes` is not a non-empty 1-D array of positive integers",
                    lambda sizes, allowed: _block_mask_checking(sizes, allowed, sizes_checked=False),
                    docstring=("group_sizes: (g,) positive integers", "Raises ValueError on bad sizes")),
        Requirement("or `allowed` is not booleans of shape `(g, g)`",
                    lambda sizes, allowed: _block_mask_checking(sizes, allowed, allowed_checked=False),
                    docstring=("allowed: (g, g) booleans", "a bad allowed table")),
    ), shows=("The robot layout of the chapter, 277 tokens: each token's row repeats its group's row of `allowed`.\n"
              "A group of 0 tokens, a table of 0s and 1s and a 5 x 5 table for 4 groups raise a ValueError.")),
    Exercise("source_shares", ref.source_shares, source_shares_hidden, source_shares_visible, stream=46,
             meets=ARRAYS | COUNTS,
             points=Points(1, 2), mistakes=(
        Mistake("tokens counted instead of weights summed", 6,
                "Add up the weight the query gives each key of a source: how many of its keys a query reads "
                "says nothing about how much it reads them.", _tokens_counted),
        Mistake("summed over the queries", 6,
                "Sum each query's row over its keys (the last axis): adding up the queries gives every row the "
                "same shares.", _summed_over_queries),
        Mistake("shares divided per source, not per query", 6,
                "Divide each row by its own total weight, so each query's shares add up to 1; dividing each "
                "source's column by its total over the queries mixes the queries.", _divided_per_source),
        Mistake("a source without keys dropped", 6,
                "Give every id from 0 to n_sources − 1 a column (n_sources = source.max() + 1 when not given), "
                "a column of zeros for a source no key came from.", _present_sources_only),
    ), requirements=(
        Requirement("`weights` holds attention weights of shape `(..., n_q, n_k)`",
                    one_sequence_only(ref.source_shares), docstring="weights: (..., n_q, n_k) attention weights"),
        Requirement("`source` is a 1-D array of `n_k` integer ids, one per key",
                    lambda *a, **k: _shares_checking(*a, **k, integers_checked=False),
                    docstring="source: (n_k,) integer ids"),
        Requirement("There are `n_sources` sources, numbered 0 to `n_sources - 1`",
                    lambda weights, source, n_sources=None: ref.source_shares(weights, source)),
        Requirement("when it is not given, take `source.max() + 1`", "a source without keys dropped",
                    docstring="None for source.max() + 1"),
        Requirement("the total weight query `i` gives to the keys from source `s`",
                    "tokens counted instead of weights summed",
                    docstring="the weight query i gives the keys of source s"),
        Requirement("divided by the total weight of row `i`, so each row adds up to 1 even when the weights "
                    "given do not",
                    lambda weights, source, n_sources=None: _summed_by_source(
                        weights, source, ref.source_shares(weights, source, n_sources).shape[-1]),
                    docstring="over row i's total"),
        Requirement("A source with no key still gets its column, of zeros", "a source without keys dropped"),
        Requirement("a row with no weight at all (a query whose every key is forbidden) gives zeros, not NaN",
                    _shares_divided_plainly, docstring="a row without weight gives zeros"),
        Requirement("Float32 weights give float32 shares",
                    lambda *a, **k: ref.source_shares(*a, **k).astype(np.float64),
                    docstring="in weights' float dtype"),
        Requirement("Raise a `ValueError` when `weights` has fewer than 2 axes",
                    lambda *a, **k: _shares_checking(*a, **k, weights_checked=False),
                    docstring="Raises ValueError on bad weights"),
        Requirement("when `source` is not a 1-D integer array with one id per key",
                    lambda *a, **k: _shares_checking(*a, **k, length_checked=False), docstring="a bad source"),
        Requirement("when an id is negative", lambda *a, **k: _shares_checking(*a, **k, negative_checked=False),
                    docstring="ids from 0"),
        Requirement("or when `n_sources` is not a positive integer larger than every id",
                    lambda *a, **k: _shares_checking(*a, **k, count_checked=False),
                    docstring=("larger than every id", "a bad n_sources")),
    ), shows=('The worked example\'s weights with "pick up" from the user and "the cube" from a web page: without a mask,\n'
              "with the causal mask, as e to each score (rows that do not add up to 1), with a query that may read nothing,\n"
              "in a batch of two and in float32; ids 0 and 2 only, and 3 sources asked for. A source of 3 ids for 4 keys,\n"
              "a negative id, ids as floats, n_sources = 1 with an id of 1 and weights of one row (1-D) raise a ValueError.")),
)
