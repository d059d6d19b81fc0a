"""Notebook 08, check yourself: the chapter's questions, answered by computing where it can."""

from __future__ import annotations

import math

import numpy as np

from autograder.exercises.inputs import f32, normal, normal_draws, worked
from autograder.exercises.spec import (COUNTS, Exercise, Mistake, Points, Requirement, case, count_edges,
                                       one_sequence_only, past_float32)
from solutions import attention as ref
from solutions.check_yourself import ANSWERS

NOTEBOOK = "08_check_yourself"
QUESTION = Points(check=None, hidden=1)  # a question has no visible check: its answer is graded hidden only


def hull_excess_visible():
    w = worked()
    last_hidden = np.ones((4, 4), dtype=bool)
    last_hidden[:, 3] = False
    O_masked, _ = ref.attention(w.Q, w.K, w.V, np.where(last_hidden, 0.0, -np.inf))
    first_sees_nothing = last_hidden.copy()
    first_sees_nothing[0] = False
    V5 = np.vstack([w.V, w.V[:1] - 1])[:, :3]  # 5 value rows of 3 numbers
    return [case("the worked example's outputs", w.O, w.V),
            case("every size different: 2 outputs of 5 value rows of 3 numbers",
                 ref.softmax(ref.scaled_scores(w.Q[:2], np.vstack([w.K, w.K[:1] + 1]))) @ V5, V5),
            case("the worked example with 'cube' hidden from every query", O_masked, w.V, last_hidden),
            case("the outputs multiplied by W_o (no longer a mix of V)", w.O @ w.W_o, w.V),
            case("unmasked outputs, though 'cube' was hidden (a mask left out)", w.O, w.V, last_hidden),
            case("the outputs multiplied by W_o, in float32", (w.O @ w.W_o).astype(f32), w.V.astype(f32)),
            case("V one number wide against outputs 4 wide", w.O, w.V[:, :1], raises="ValueError"),
            case("allowed given as 0s and 1s, not booleans", w.O, w.V, last_hidden.astype(int), raises="ValueError"),
            case("allowed of shape (1, 4), one row for all queries", w.O, w.V, last_hidden[:1], raises="ValueError"),
            case("a query that may see nothing", w.O, w.V, first_sees_nothing, raises="ValueError")]


def hull_excess_hidden(rng):
    n = normal_draws(rng)
    V = n(6, 3)
    weights = ref.softmax(n(5, 6, scale=2))
    cases = [case("attention outputs on 6 value rows", weights @ V, V)]
    allowed = np.tril(np.ones((6, 6), dtype=bool))
    causal = ref.softmax(n(6, 6, scale=2) + ref.causal_mask(6))
    return cases + [
        case("causal outputs: row i may see value rows 0 … i", causal @ V, V, allowed),
        case("outputs that read rows the mask forbids (unmasked weights, causal allowed)",
             ref.softmax(n(6, 6, scale=2)) @ V, V, allowed),
        case("outputs of weights that do not add up to one", np.exp(n(5, 6)) @ V, V),
        case("outputs with negative weights", (n(5, 6) - 0.5) @ V, V, None),
        case("float32 outputs", (weights @ V).astype(f32), V.astype(f32)),
        case("float32 outputs of weights that do not add up to one", (np.exp(n(5, 6)) @ V).astype(f32),
             V.astype(f32)),
        case("a query that may see nothing", weights @ V, V, np.zeros((5, 6), dtype=bool), raises="ValueError"),
        case("V one number wide against outputs 3 wide", weights @ V, V[:, :1], raises="ValueError"),
        case("allowed given as 0.0 and 1.0", causal @ V, V, allowed.astype(float), raises="ValueError"),
        case("allowed of shape (1, 6), one row for all queries", causal @ V, V, allowed[-1:], raises="ValueError"),
        case("O a batch of one (1, 3, 3) against V (6, 3)", (weights @ V)[None, :3], V, raises="ValueError",
             checks="bad shape"),
        case("V a stack of 3 (3, 3, 3) against O (3, 3)", (weights @ V)[:3], np.stack([V[:3]] * 3), raises="ValueError",
             checks="bad shape"),
        case("O one number wide against V 3 wide", (weights @ V)[:, :1], V, raises="ValueError", checks="bad shape"),
        case("one query, allowed of 2 rows", (weights @ V)[:1], V, np.ones((2, 6), dtype=bool), raises="ValueError",
             checks="bad shape"),
        case("one value row, allowed of 3 columns", weights[:, :1] @ V[:1], V[:1], np.ones((5, 3), dtype=bool),
             raises="ValueError", checks="bad shape"),
        case("value row 5 hidden from every query", weights @ V, V, np.arange(6)[None, :].repeat(5, 0) < 5),
        case("query 2 may see nothing, the others everything", weights @ V, V, np.arange(5)[:, None].repeat(6, 1) != 2,
             raises="ValueError"),
        case("value rows all below −1, outputs raised by 0.5, causal allowed", causal @ (-1 - np.abs(V)) + 0.5,
             -1 - np.abs(V), allowed),
        case("sizes past 256: 3 outputs of width 300 from 4 value rows", ref.softmax(n(3, 4)) @ n(4, 300), n(4, 300)),
    ]


def _hull_excess_with(O, V, allowed=None, *, every_row=False, signed=False):
    O, V = np.asarray(O, dtype=np.float64), np.asarray(V, dtype=np.float64)
    if allowed is None or every_row:
        allowed = np.ones((O.shape[0], V.shape[0]), dtype=bool)
    visible = np.asarray(allowed)[:, :, None]
    outside = np.maximum(O - np.where(visible, V[None], -np.inf).max(axis=1),
                         np.where(visible, V[None], np.inf).min(axis=1) - O)
    return outside.max(axis=1) if signed else np.maximum(outside, 0.0).max(axis=1)


def _hull_excess_trusting(trusted: str):
    """hull_excess with every input check but `trusted` ("shapes", "booleans", "shape of allowed" or
    "a True per row"): what that one would refuse, NumPy takes as it comes (broadcast, read as true or false)."""
    def answer(O, V, allowed=None):
        O, V = np.asarray(O), np.asarray(V)
        if trusted != "shapes" and (O.ndim != 2 or V.ndim != 2 or O.shape[1] != V.shape[1]):
            raise ValueError(f"O {O.shape} and V {V.shape} do not fit")
        grid = np.ones((len(O), len(V)), dtype=bool) if allowed is None else np.asarray(allowed)
        if trusted != "booleans" and grid.dtype != bool:
            raise ValueError("allowed must be booleans")
        if trusted != "shape of allowed" and grid.shape != (len(O), len(V)):
            raise ValueError(f"allowed must be {(len(O), len(V))}")
        if trusted != "a True per row" and not grid.any(axis=1).all():
            raise ValueError("every query must see a row")
        return _hull_excess_with(O, V, grid).astype(np.result_type(O, V))
    return answer


def _hull_excess_in_float64(O, V, allowed=None):
    return ref.hull_excess(O, V, allowed).astype(np.float64)


def equal_scores_visible():
    w = worked()
    return [case("the worked example's value rows", w.V),
            case("its first 3 value rows: 3 rows of 4 numbers", w.V[:3]),
            case("the worked example's value rows and twice them, as a float32 batch of 2",
                 np.stack([w.V, 2 * w.V]).astype(f32))]


def equal_scores_hidden(rng):
    return [case("value rows (5, 3)", normal(rng, (5, 3))),
            case("a batch (2, 4, 6)", normal(rng, (2, 4, 6)), checks="batched"),
            case("value rows (4, 3) in float32", normal(rng, (4, 3), np.float32), checks="float32")]


def _equal_scores_in_float64(V):
    return np.asarray(V, dtype=np.float64).mean(axis=-2)


def head_columns_visible():
    return [case("the worked example's width 4 in 2 heads", 4, 2),
            case("the chapter's large model: width 4096, 32 heads", 4096, 32),
            case("width 768 in 10 heads", 768, 10, raises="ValueError"),
            case("a width of 0", 0, 1, raises="ValueError")]


def head_columns_hidden(rng):
    return [case("width 768, 12 heads", 768, 12), case("width 6, 3 heads", 6, 3), case("width 8, 1 head", 8, 1),
            case("width 5, 5 heads of one column", 5, 5),
            case("width 10 in 4 heads", 10, 4, raises="ValueError", checks="bad shape"),
            case("a width of −4", -4, 2, raises="ValueError", checks="bad size"),
            case("a width of 8.0, a float", 8.0, 2, raises="ValueError", checks="bad size")] + \
        count_edges((6, 1), {0: "d"}) + count_edges((6, 2), {1: "n_heads"})


def _head_columns_width_unchecked(d, n_heads):
    """head_columns that hands d to np.arange as it comes: 0 gives empty rows, 8.0 a float row split."""
    return ref.split_heads(np.arange(d)[None], n_heads)[:, 0, :].astype(np.int64)


def _head_columns_cut_short(d, n_heads):
    """head_columns that drops the columns left over when n_heads does not divide d."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return np.arange(d - d % n_heads).reshape(n_heads, -1).astype(np.int64)


def leaked_targets_visible():
    X = worked().X
    return [case("the worked example's tokens, causal mask", X, ref.causal_mask(4)),
            case("its first 3 tokens: 3 tokens of width 4, causal mask", X[:3], ref.causal_mask(3)),
            case("the worked example's tokens, no mask", X, np.zeros((4, 4))),
            case("the worked example's tokens, each seeing only the one before it", X, _lag_mask(4)),
            case("the worked example's tokens, causal, the next token seen at −25 (nearly forbidden, not forbidden)",
                 X, _next_at(4, -25.0)),
            case("X of shape (1, 4, 4), a batch of one sequence", X[None], ref.causal_mask(4), raises="ValueError"),
            case("a mask of shape (4,), one row for every query", X, np.zeros(4), raises="ValueError"),
            case("a stack of 2 causal masks (one per head)", X, np.stack([ref.causal_mask(4)] * 2), raises="ValueError")]


def leaked_targets_hidden(rng):
    n = normal_draws(rng)
    group_mask = ref.block_mask(np.array([2, 3, 1]), np.array([[True, True, False], [True, True, False],
                                                               [True, True, True]]))
    return [case("9 tokens, causal mask", n(9, 3), ref.causal_mask(9)),
            case("7 tokens, no mask", n(7, 5), np.zeros((7, 7))),
            case("7 tokens, each seeing only the one before it", n(7, 4), _lag_mask(7)),
            case("6 tokens, each seeing one token ahead", n(6, 4), np.triu(np.full((6, 6), -np.inf), k=2)),
            case("6 tokens, a causal mask that also forbids the token itself", n(6, 4),
                 np.triu(np.full((6, 6), -np.inf), k=0)),
            case("6 tokens, a causal mask written the wrong way round", n(6, 4), ref.causal_mask(6).T.copy()),
            case("6 tokens, a group mask (two groups see each other)", n(6, 3), group_mask),
            case("5 tokens, causal, the next token seen at −25", n(5, 4), _next_at(5, -25.0)),
            case("6 float32 tokens, causal mask", n(6, 4).astype(f32), ref.causal_mask(6)),
            case("one token: no position has a target", n(1, 4), np.zeros((1, 1))),
            case("7 tokens, each seeing itself and the token two ahead, never the next", n(7, 4), _two_ahead_mask(7)),
            case("X of shape (2, 5, 4)", n(2, 5, 4), ref.causal_mask(5), raises="ValueError"),
            case("a mask of shape (1, 5)", n(5, 4), np.zeros((1, 5)), raises="ValueError"),
            case("a mask of 6 × 6 for 5 tokens", n(5, 4), ref.causal_mask(6), raises="ValueError"),
            case("X of shape (5, 5, 4): 5 sequences of 5 tokens", n(5, 5, 4), ref.causal_mask(5), raises="ValueError",
                 checks="bad shape"),
            case("masks of a batch of 6, (6, 5, 5)", n(5, 4), np.zeros((6, 5, 5)), raises="ValueError",
                 checks="bad shape"),
            case("4 tokens of one number, 1, −1, 2, −2, no mask: the outputs that leak move down",
                 np.array([[1.0], [-1.0], [2.0], [-2.0]]), np.zeros((4, 4))),
            case("integers past 2²⁵, where float32 holds every fourth only, no mask", past_float32(n(5, 2)),
                 np.zeros((5, 5)), checks="integers")]


def _two_ahead_mask(n: int) -> np.ndarray:
    """(n, n) additive: token i may see itself and token i + 2, never its target i + 1."""
    allowed = np.eye(n, dtype=bool) | np.eye(n, k=2, dtype=bool)
    return np.where(allowed, 0.0, -np.inf)


def _every_later_token_changed(X, mask):
    """leaked_targets that changes every token after i, not token i + 1 alone."""
    X = np.asarray(X, dtype=float)
    before, _ = ref.attention(X, X, X, mask)
    leaks = 0
    for i in range(len(X) - 1):
        changed = X.copy()
        changed[i + 1:] += 1.0
        leaks += bool((ref.attention(changed, changed, changed, mask)[0][i] != before[i]).any())
    return leaks


def _lag_mask(n: int) -> np.ndarray:
    """(n, n) additive: token i may see token i − 1 only (token 0 itself)."""
    allowed = np.eye(n, k=-1, dtype=bool)
    allowed[0, 0] = True
    return np.where(allowed, 0.0, -np.inf)


def _next_at(n: int, value: float) -> np.ndarray:
    """(n, n) causal mask that lets token i see token i + 1 at `value` (−25: a weight near e⁻²⁵, not 0)."""
    mask = ref.causal_mask(n)
    mask[np.arange(n - 1), np.arange(1, n)] = value
    return mask


def _outputs(X, mask) -> np.ndarray:
    return ref.attention(X, X, X, mask)[0]


def _nudged(X, j: int) -> np.ndarray:
    """A copy of X with 1.0 added to every number of token j."""
    changed = np.array(X, dtype=np.float64)
    changed[j] += 1.0
    return changed


def _checked_tokens(X, mask) -> tuple[np.ndarray, np.ndarray]:
    """X and mask in float64, once the reference has found them (n, d) and (n, n) (it raises as it does)."""
    ref.leaked_targets(X, mask)
    return np.asarray(X, dtype=np.float64), np.asarray(mask, dtype=np.float64)


def _row_moves(X, mask, changed_token: int, row: int, *, close: bool = False) -> bool:
    """Whether output row `row` moves when 1.0 is added to token `changed_token` (np.isclose when `close`)."""
    before, after = _outputs(X, mask)[row], _outputs(_nudged(X, changed_token), mask)[row]
    return not np.isclose(before, after).all() if close else bool((before != after).any())


def _leaks_counted(X, mask, *, offset: int = 1, close: bool = False) -> int:
    """Positions i whose row moves when token i + offset changes (offset 0: itself; −1: the one before)."""
    X, mask = _checked_tokens(X, mask)
    n = len(X)
    positions = range(max(0, -offset), min(n, n - offset)) if offset else range(n - 1)
    return sum(_row_moves(X, mask, i + offset, i, close=close) for i in positions)


def _every_changed_row(X, mask) -> int:
    """For each target i + 1, the output rows that move anywhere, added up: rows, not positions."""
    X, mask = _checked_tokens(X, mask)
    before = _outputs(X, mask)
    return sum(int((_outputs(_nudged(X, j), mask) != before).any(axis=-1).sum()) for j in range(1, len(X)))


def _leaked_targets_in_place(X, mask):
    """leaked_targets that adds the 1.0 to the caller's own X (np.asarray copies nothing) and leaves it there."""
    ref.leaked_targets(X, mask)
    X = np.asarray(X)
    before = _outputs(X, mask)
    leaks = 0
    for i in range(len(X) - 1):
        X[i + 1] += 1.0
        leaks += bool((_outputs(X, mask)[i] != before[i]).any())
    return leaks


def _leaked_targets_x_unchecked(X, mask):
    """leaked_targets that checks the mask against X's first axis only: a 3-D X goes through as a batch."""
    X, mask = np.asarray(X, dtype=np.float64), np.asarray(mask, dtype=np.float64)
    if mask.shape != (X.shape[-2], X.shape[-2]):
        raise ValueError(f"mask must be (n, n), got {mask.shape}")
    before = _outputs(X, mask)
    return sum(bool((_outputs(_nudged(X, i + 1), mask)[i] != before[i]).any()) for i in range(len(X) - 1))


def _leaked_targets_mask_unchecked(X, mask):
    """leaked_targets that checks X and hands any mask to attention, which broadcasts what it can."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be (n, d), got {X.shape}")
    before = _outputs(X, mask)
    return sum(bool((_outputs(_nudged(X, i + 1), mask)[..., i, :] != before[..., i, :]).any())
               for i in range(len(X) - 1))


def gradient_size_visible():
    rng = np.random.default_rng(12)
    draws = {d_k: (rng.standard_normal((60, d_k)), rng.standard_normal((60, 16, d_k))) for d_k in (4, 256)}
    Q, K = draws[4]
    return [case("60 queries against 16 keys each, head size 4", *draws[4]),
            case("60 queries against 16 keys each, head size 256", *draws[256]),
            case("40 float32 queries and keys of numbers near 25 (float32 rounds their scores)",
                 *_near(25, rng, 40, 8, 16)),
            case("the keys of 60 queries against 1 query (one query for all)", Q[:1], K, raises="ValueError"),
            case("K of shape (60, 4), one key per query and no key axis", Q, K[:, 0], raises="ValueError")]


def gradient_size_hidden(rng):
    n = normal_draws(rng)
    return [case(f"{t} queries against 12 keys each, head size {d_k}", n(t, d_k), n(t, 12, d_k))
            for t, d_k in ((50, 16), (20, 1024))] + [
        case("30 float32 queries and keys of numbers near 20", *_near(20, rng, 30, 6, 16)),
        case("Q of head size 4 against keys of head size 3", n(5, 4), n(5, 6, 3), raises="ValueError"),
        case("the keys of 6 queries against 1 query (one query for all)", n(1, 4), n(6, 5, 4), raises="ValueError"),
        case("K of shape (6, 4), no key axis", n(6, 4), n(6, 4), raises="ValueError"),
        case("a batch of 2 × 3 queries, Q (2, 3, 4)", n(2, 3, 4), n(2, 3, 5, 4), raises="ValueError"),
        case("the keys of 1 query for 6 queries, K (1, 5, 4)", n(6, 4), n(1, 5, 4), raises="ValueError",
             checks="bad shape"),
        case("300 queries against 3 keys each, head size 2", n(300, 2), n(300, 3, 2)),
        case("keys of head size 1 against queries of head size 4", n(5, 4), n(5, 6, 1), raises="ValueError",
             checks="bad shape"),
        case("queries of head size 1 against keys of head size 4", n(5, 1), n(5, 6, 4), raises="ValueError",
             checks="bad shape"),
        case("queries of two numbers near 10,000 that nearly cancel against keys 5, −5: float32 would round the "
             "difference", np.array([[10000.3, 10000.1], [5000.7, 5000.2], [20000.05, 20000.15]]),
             np.array([[[5.0, -5.0], [0.0, 0.0]]] * 3)),
        case("small integer queries, integer keys past 2²⁵ that differ in their last digits",
             np.rint(n(8, 3)).astype(np.int64), past_float32(n(8, 5, 3)), checks="integers")]


def _near(centre: float, rng, t: int, n_k: int, d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """(t, d_k) float32 Q and (t, n_k, d_k) K within about 0.01 of `centre`: scores near d_k·centre² whose
    differences, what the softmax sees, sit in their 4th to 5th digit, where float32 arithmetic rounds."""
    return ((centre + 0.01 * rng.standard_normal((t, d_k))).astype(f32),
            (centre + 0.01 * rng.standard_normal((t, n_k, d_k))).astype(f32))


def _scores(Q, K, *, checked: bool = True) -> np.ndarray:
    """(t, n_k) float64 raw scores, once the reference has found Q and K fit (unless not `checked`)."""
    if checked:
        ref.gradient_size(Q, K)
    return np.einsum("...d,...kd->...k", np.asarray(Q, dtype=np.float64), np.asarray(K, dtype=np.float64))


def _sizes_with(Q, K, *, divisor=math.sqrt, size=lambda J: np.linalg.norm(J, axis=(-2, -1)).mean(),
                checked: bool = True) -> tuple[float, float]:
    """(raw, scaled) gradient sizes with the scaling divisor(d_k) and the size of a stack of grids `size`."""
    raw = _scores(Q, K, checked=checked)
    return tuple(float(size(ref.softmax_jacobian(s))) for s in (raw, raw / divisor(np.shape(Q)[-1])))


def _gradient_size_in_input_dtype(Q, K):
    """gradient_size computed in the inputs' own dtype (float32 scores, float32 grids)."""
    ref.gradient_size(Q, K)
    Q, K = np.asarray(Q), np.asarray(K)
    raw = np.einsum("td,tkd->tk", Q, K)
    return tuple(float(np.linalg.norm(ref.softmax_jacobian(s), axis=(-2, -1)).mean())
                 for s in (raw, raw / Q.dtype.type(math.sqrt(Q.shape[1]))))


def answer_hidden(rng):
    """A question answered by a value: its one case is the answer itself."""
    return [case("your answer")]


def _question(name: str, *requirements: Requirement) -> Exercise:
    return Exercise(name, ANSWERS[name], answer_hidden, requirements=requirements, points=QUESTION)


EXERCISES = (
    Exercise("hull_excess", ref.hull_excess, hull_excess_hidden, hull_excess_visible, stream=29,
             meets=frozenset({"integers"}), mistakes=(
        Mistake("every value row counted, masked ones too", 4,
                "Only the value rows a query may see (allowed[i]) bound its output.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, every_row=True)),
        Mistake("signed distance", 4, "Inside the box the excess is 0.0, not negative: clip at zero.",
                lambda O, V, allowed=None: _hull_excess_with(O, V, allowed, signed=True)),
    ), requirements=(
        Requirement("of that number over its visible value rows", "every value row counted, masked ones too"),
        Requirement("and 0.0 when it lies inside", "signed distance", docstring="0.0 inside the box"),
        Requirement("Return `(n_q,)` in the inputs' float dtype", _hull_excess_in_float64),
        Requirement("Raise a `ValueError` on shapes that do not fit", _hull_excess_trusting("shapes"),
                    docstring="Raises ValueError on shapes that do not fit"),
        Requirement("when `allowed` is not booleans", _hull_excess_trusting("booleans")),
        Requirement("booleans of shape `(n_q, n_k)`", _hull_excess_trusting("shape of allowed")),
        Requirement("with at least one True per row", _hull_excess_trusting("a True per row"),
                    docstring="a row of allowed with no True"),
    ), shows=("Attention's outputs never stick out (with and without a mask); multiplied by W_o, they do (float64 and float32).\n"
              "Then inputs that must raise a ValueError.")),
    Exercise("equal_scores", ANSWERS["equal_scores"], equal_scores_hidden, equal_scores_visible, stream=99,
             meets=frozenset({"float32", "batched", "integers"}),
             points=QUESTION, requirements=(
        Requirement("`V` of shape `(..., n_k, d_v)`", one_sequence_only(ANSWERS["equal_scores"])),
        Requirement("Keep the dtype of float input (float32 in, float32 out)", _equal_scores_in_float64),
    )),
    Exercise("leaked_targets", ref.leaked_targets, leaked_targets_hidden, leaked_targets_visible, stream=30,
             meets=frozenset({"integers"}),
             built_on=("raw_scores", "scaled_scores", "softmax", "attention"), mistakes=(
        Mistake("the token itself instead of the next", 6,
                "Position i is trained to predict token i + 1: change token i + 1 and watch output row i.",
                lambda X, mask: _leaks_counted(X, mask, offset=0)),
        Mistake("the token before instead of the next", 6,
                "The target of position i comes after it: change token i + 1, not token i − 1.",
                lambda X, mask: _leaks_counted(X, mask, offset=-1)),
        Mistake("every changed row counted", 6,
                "Count positions, one per i: whether output row i moves when token i + 1 changes, "
                "not every row that moves.", _every_changed_row),
    ), requirements=(
        Requirement("token `i + 1` in a copy of `X`", "the token itself instead of the next",
                    docstring="when token i + 1 changes"),
        Requirement("add 1.0 to every number of token `i + 1`", _every_later_token_changed,
                    unseen="the worked example's masks show a token its target whenever they show it a later one"),
        Requirement("never change the caller's `X`", _leaked_targets_in_place),
        Requirement("Return, as a Python int", lambda X, mask: float(ref.leaked_targets(X, mask)),
                    docstring="Returns an int"),
        Requirement("how many positions `i` have an output row", "every changed row counted",
                    docstring="the positions i < n - 1 whose output row changes"),
        Requirement("(exact comparison", lambda X, mask: _leaks_counted(X, mask, close=True)),
        Requirement("Raise a `ValueError` when `X` is not 2-D", _leaked_targets_x_unchecked,
                    docstring="Raises ValueError when X is not 2-D"),
        Requirement("`mask` is not `(n, n)`", _leaked_targets_mask_unchecked, docstring="mask is not (n, n)"),
    ), shows=("The worked example's tokens under the causal mask, under no mask, under a mask that lets each token see only\n"
              "the one before it, and under a causal mask that lets each token see the next one at −25 (nearly forbidden, not\n"
              "forbidden). Then a 3-D X, and masks that are not one (4, 4) grid (a ValueError).")),
    Exercise("head_columns", ref.head_columns, head_columns_hidden, head_columns_visible, stream=47,
             meets=COUNTS | frozenset({"bad shape"}),
             built_on=("split_heads",), mistakes=(
        Mistake("every n_heads-th column", 5,
                "A head gets d_k neighbouring columns: head m has m·d_k … (m + 1)·d_k − 1, not every h-th one.",
                lambda d, h: ref.head_columns(d, h).reshape(-1).reshape(-1, h).T.copy()),
        Mistake("columns counted from 1", 5, "Columns are numbered from 0, as NumPy indexes them.",
                lambda d, h: ref.head_columns(d, h) + 1),
    ), requirements=(
        Requirement("return an integer array", lambda d, h: ref.head_columns(d, h).astype(np.float64),
                    docstring="integer array"),
        Requirement("Raise a `ValueError` when `d` is not a positive integer", _head_columns_width_unchecked),
        Requirement("`n_heads` does not divide `d`", _head_columns_cut_short, docstring="n_heads does not divide d"),
    ), shows=("The worked example's width 4 in 2 heads and the chapter's large model (width 4096, 32 heads), then sizes that\n"
              "must raise a ValueError: 10 heads, which do not divide a width of 768, and a width of 0.")),
    _question("params_4096",
              Requirement("a float, even one with nothing after the point, is refused", float(4 * 4096**2)),
              Requirement("and so is a rounded figure", 67_100_000)),
    _question("skip_formula"),
    Exercise("gradient_size", ref.gradient_size, gradient_size_hidden, gradient_size_visible, stream=31,
             meets=frozenset({"integers"}),
             built_on=("softmax", "softmax_jacobian"),
             parts=("the raw gradient size", "the scaled gradient size"), mistakes=(
        Mistake("scaled by d_k instead of √d_k", 3, "Divide the scores by √d_k, not by d_k, before the softmax.",
                lambda Q, K: _sizes_with(Q, K, divisor=float)),
        Mistake("one norm of every grid together", 3,
                "Take the Frobenius norm of each query's n_k × n_k grid (axis=(-2, -1)), then the mean over queries.",
                lambda Q, K: _sizes_with(Q, K, size=np.linalg.norm)),
        Mistake("the largest entry instead of the size", 3,
                "A grid's size is its Frobenius norm √(Σ J²), not its largest entry.",
                lambda Q, K: _sizes_with(Q, K, size=lambda J: np.abs(J).max(axis=(-2, -1)).mean())),
    ), requirements=(
        Requirement("Return a tuple of two Python floats", lambda Q, K: np.array(ref.gradient_size(Q, K)),
                    docstring="two floats"),
        Requirement("the same scores divided by `√d_k`", "scaled by d_k instead of √d_k"),
        Requirement("its Frobenius norm", "the largest entry instead of the size"),
        Requirement("the mean size over the `t` queries", "one norm of every grid together"),
        Requirement("Compute in float64", _gradient_size_in_input_dtype, docstring="computed in float64"),
        Requirement("Raise a `ValueError` when `Q` is not `(t, d_k)`",
                    lambda Q, K: _sizes_with(Q, K, checked=False),
                    docstring="Raises ValueError when Q is not (t, d_k)"),
    ), shows=("60 queries against 16 keys each at head size 4 and at 256, then float32 queries and keys whose scores\n"
              "float32 would round, and shapes that must raise a ValueError.")),
    _question("skip_causal"),
    _question("skip_heads"),
)
