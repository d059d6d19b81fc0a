"""Notebook 07, cost: the work and memory of attention against the projections and the MLP."""

from __future__ import annotations

import numpy as np

from autograder.exercises.inputs import normal_draws, worked
from autograder.exercises.spec import COUNTS, Exercise, Mistake, Requirement, case, count_edges, counted
from solutions import attention as ref

NOTEBOOK = "07_cost"

# The notebook's rule for every function: arguments are positive integers, checked; counts are integers.
POSITIVE = "an argument that is not a positive integer"
NOT_WHOLE = "`True` and `768.0` do not count"
COUNTS_ARE_INTS = "Counts are returned as integers"


def _below_one_refused(formula):
    """The formula behind a check for values below 1 only: True and 768.0 pass it."""
    def answer(*args):
        if any(x < 1 for x in args):
            raise ValueError("every argument must be at least 1")
        return formula(*args)
    return answer


def _in_floats(reference):
    """The right checks, but the count computed in floating point."""
    return lambda *args: float(reference(*args))


def rules(reference, formula, *, count=True):
    """The notebook's rules as requirements of one function, with the answers that break them
    (`formula` unchecked: 0 gives 0, True counts as 1, 768.0 gives a float)."""
    found = (Requirement(POSITIVE, formula), Requirement(NOT_WHOLE, _below_one_refused(formula)))
    return found + ((Requirement(COUNTS_ARE_INTS, _in_floats(reference)),) if count else ())


def chapter_layer_visible():
    return [case("512 tokens of width 768", 512, 768)] + count_edges((512, 768), {0: "n", 1: "d"}, visible=True)


def sizes_hidden(rng):
    """projection_flops, score_flops and attention_share."""
    return [case(f"{tokens} tokens of width {width}", tokens, width)
            for tokens, width in ((100, 64), (4096, 768), (7, 3))] + count_edges((100, 64), {0: "n", 1: "d"})


def attention_share_visible():
    return [case("512 tokens of width 768 (the chapter: 25.0%)", 512, 768)] + count_edges((512, 768), {0: "n", 1: "d"}, visible=True)


def _layer(rng, d, d_h, d_v, d_out):
    """W_q, W_k (d, d_h), W_v (d, d_v) and W_o (d_v, d_out), drawn from `rng`."""
    n = normal_draws(rng)
    return n(d, d_h), n(d, d_h), n(d, d_v), n(d_v, d_out)


def _widths(d, d_h, d_v, d_out):
    return f"d = {d}, d_h = {d_h}, d_v = {d_v}, d_out = {d_out}"


def layer_edges(*after, stacks: bool = True) -> list:
    """The shapes of a layer's four matrices at the edges of the rule for shapes their texts state, for the
    exercises that read them (crossover_length, attention_params, the arguments `after` the matrices): W_k wider than
    W_q, W_v a row short and over, W_o 2 rows short and over, W_q, W_k and W_v stacks of 2 (W_o fits them;
    2 heads divide every width; only where `stacks`: a text that asks for 2-D matrices), a layer of width 1
    throughout (1 for each argument after) and one past 256,
    and integer matrices (only their shapes count). Zeros: only the shapes are read."""
    z = np.zeros
    stacked = [case("W_q, W_k and W_v stacks of 2 matrices, W_o (6, 6)", z((2, 6, 4)), z((2, 6, 4)), z((2, 6, 6)),
                    z((6, 6)), *after, raises="ValueError", checks="bad shape")] if stacks else []
    return stacked + [
        case("W_k wider than W_q", z((6, 4)), z((6, 6)), z((6, 4)), z((4, 6)), *after, raises="ValueError",
             checks="bad shape"),
        case("W_v of 5 rows for width 6", z((6, 4)), z((6, 4)), z((5, 4)), z((4, 6)), *after, raises="ValueError",
             checks="bad shape"),
        case("W_v of 7 rows for width 6", z((6, 4)), z((6, 4)), z((7, 4)), z((4, 6)), *after, raises="ValueError",
             checks="bad shape"),
        case("W_o of 2 rows for a W_v of 4 columns", z((6, 4)), z((6, 4)), z((6, 4)), z((2, 6)), *after,
             raises="ValueError", checks="bad shape"),
        case("W_o of 6 rows for a W_v of 4 columns", z((6, 4)), z((6, 4)), z((6, 4)), z((6, 6)), *after,
             raises="ValueError", checks="bad shape"),
        case("a layer of width 1: every matrix (1, 1)", z((1, 1)), z((1, 1)), z((1, 1)), z((1, 1)), *(1,) * len(after)),
        case("sizes past 256: d = 260, d_h = 2, d_v = 258, d_out = 3", z((260, 2)), z((260, 2)), z((260, 258)),
             z((258, 3)), *after),
        case("integer matrices: only their shapes count", *(np.ones(s, dtype=np.int64) for s in
                                                            ((5, 4), (5, 4), (5, 6), (6, 5))), *after),
        case("matrices of 8-bit unsigned integers", *(np.ones(s, dtype=np.uint8) for s in
                                                      ((5, 4), (5, 4), (5, 6), (6, 5))), *after)]


def crossover_length_visible():
    w = worked()
    return [case("the worked example's matrices, W_o the identity (width 4: 2·d = 8)", w.W_q, w.W_k, w.W_v, np.eye(4)),
            case("W_q, W_k of 2 columns, W_o the identity (still 2·d)", w.W_q[:, :2], w.W_k[:, :2], w.W_v, np.eye(4)),
            case("W_v (4, 2) and W_o (2, 6): d_out = 6", w.W_q, w.W_k, w.W_v[:, :2], np.ones((2, 6))),
            case("every width different: d = 4, d_h = 3, d_v = 2, d_out = 6", w.W_q[:, :3], w.W_k[:, :3], w.W_v[:, :2],
                 np.ones((2, 6))),
            case("W_o of 3 rows for a W_v of 4 columns", w.W_q, w.W_k, w.W_v, np.ones((3, 4)), raises="ValueError")]


def crossover_length_hidden(rng):
    shapes = ((12, 12, 12, 12), (10, 8, 6, 5), (6, 9, 9, 4), (5, 3, 2, 7), (3, 1, 5, 2), (8, 2, 6, 8))
    found = [case(_widths(*widths), *_layer(rng, *widths)) for widths in shapes]
    W_q, W_k, W_v, W_o = _layer(rng, 6, 4, 4, 6)
    return found + [
        case("W_k narrower than W_q", W_q, W_k[:, :3], W_v, W_o, raises="ValueError", checks="bad shape"),
        case("W_v of 5 rows for width 6", W_q, W_k, W_v[:5], W_o, raises="ValueError", checks="bad shape"),
        case("W_o of 3 rows for a W_v of 4 columns", W_q, W_k, W_v, W_o[:3], raises="ValueError", checks="bad shape"),
        case("an empty W_v and W_o", W_q, W_k, W_v[:, :0], W_o[:0], raises="ValueError", checks="bad shape"),
        case("a 1-D W_q and W_k", W_q[0], W_k[0], W_v, W_o, raises="ValueError", checks="bad shape")] + layer_edges()


def _crossover_with(W_q, W_k, W_v, W_o, *, output=True, mixing="d_v", grid=True, round_up=True):
    """crossover_length counted from the shapes alone, with no check that they fit (the defaults: the right
    count), or otherwise: W_o left out (`output`), the mixing counted at d_h or left out (`mixing`), rounded
    down (`round_up`) or the chapter's square layer (`grid` False: 2·d)."""
    (d, d_h), (_, d_v), (_, d_out) = np.shape(W_q)[-2:], np.shape(W_v)[-2:], np.shape(W_o)[-2:]  # a stack read as its last matrix
    if not grid:
        return 2 * d
    per_token = 2 * d * d_h + d * d_v + (d_v * d_out if output else 0)
    per_pair = d_h + {"d_v": d_v, "d_h": d_h, None: 0}[mixing]
    return -(-per_token // per_pair) if round_up else per_token // per_pair


def mlp_flops_hidden(rng):
    return [case(f"{tokens} tokens of width {width}", tokens, width)
            for tokens, width in ((100, 64), (4096, 768), (7, 3))] + count_edges((100, 64), {0: "n", 1: "d"})


def grid_over_mlp_visible():
    return [case("512 tokens of width 768 (short: the MLP dominates)", 512, 768),
            case("32,768 tokens of width 768 (long: the grid dominates)", 32768, 768)] + \
        count_edges((512, 768), {0: "n", 1: "d"}, visible=True)


def grid_over_mlp_hidden(rng):
    return [case(f"{tokens} tokens of width {width}", tokens, width)
            for tokens, width in ((3072, 768), (100_000, 4096), (8, 512))] + count_edges((8, 512), {0: "n", 1: "d"})


def score_grid_bytes_visible():
    return [case("512 tokens, 12 heads, 2 bytes (the chapter: 6 MiB)", 512, 12),
            case("1,024 tokens, 6 heads, 4 bytes", 1024, 6, 4)] + \
        count_edges((512, 12, 2), {0: "n", 1: "n_heads", 2: "bytes_per_number"}, visible=True)


def score_grid_bytes_hidden(rng):
    return [case("1,000 tokens, 16 heads, 4 bytes", 1000, 16, 4),
            case("300 tokens, 8 heads (2 bytes)", 300, 8)] + count_edges((300, 6, 4), {0: "n", 1: "n_heads", 2: "bytes_per_number"})


def attention_params_visible():
    w = worked()
    return [case(f"the worked example's matrices, W_o the identity, {h} head{'s' * (h > 1)}",
                 w.W_q, w.W_k, w.W_v, np.eye(4), h) for h in (1, 2, 4)] + [
        case("W_o (4, 6): d_out = 6", w.W_q, w.W_k, w.W_v, np.ones((4, 6)), 2),
        case("W_v (4, 2) and W_o (2, 4): d_v = 2", w.W_q, w.W_k, w.W_v[:, :2], np.ones((2, 4)), 2),
        case("every width different: d = 4, d_h = 6, d_v = 8, d_out = 3, 2 heads", np.hstack([w.W_q, w.W_q[:, :2]]),
             np.hstack([w.W_k, w.W_k[:, :2]]), np.hstack([w.W_v, w.W_v]), np.ones((8, 3)), 2),
        case("width 4 in 3 heads", w.W_q, w.W_k, w.W_v, np.eye(4), 3, raises="ValueError"),
        case("W_o of 3 rows for a W_v of 4 columns", w.W_q, w.W_k, w.W_v, np.ones((3, 4)), 2, raises="ValueError")]


def attention_params_hidden(rng):
    n = normal_draws(rng)
    square = [n(12, 12) for _ in range(4)]
    return [case(f"width 12, {counted(h, 'head')}", *square, h) for h in (1, 3, 6)] + [
        case("d = 10, d_h = 8, d_v = 6, d_out = 5, 2 heads", n(10, 8), n(10, 8), n(10, 6), n(6, 5), 2),
        case("d = 6, d_h = d_v = 9, d_out = 4, 3 heads", n(6, 9), n(6, 9), n(6, 9), n(9, 4), 3),
        case("width 12 in 5 heads", *square, 5, raises="ValueError", checks="bad shape"),
        case("W_k narrower than W_q", square[0], n(12, 6), *square[2:], 2, raises="ValueError", checks="bad shape"),
        case("0 heads", *square, 0, raises="ValueError", checks="bad size"),
        case("4 heads: d_h = 8 divides, d_v = 6 does not", n(8, 8), n(8, 8), n(8, 6), n(6, 8), 4, raises="ValueError",
             checks="bad shape"),
        case("4 heads: d_v = 8 divides, d_h = 6 does not", n(8, 6), n(8, 6), n(8, 8), n(8, 8), 4, raises="ValueError",
             checks="bad shape")] + \
        count_edges((n(6, 4), n(6, 4), n(6, 2), n(2, 6), 2), {4: "n_heads"}) + layer_edges(2, stacks=False)


def _params_with(W_q, W_k, W_v, W_o, n_heads, *, own_output=True, whole=False):
    """attention_params counted otherwise: W_o left out (`own_output` None), W_o counted whole by every head
    (`own_output` False), or every head given the whole of the four matrices (`whole`)."""
    W_q, W_k, W_v, W_o = (np.asarray(w) for w in (W_q, W_k, W_v, W_o))
    if whole:
        return np.full(n_heads, W_q.size + W_k.size + W_v.size + W_o.size, dtype=np.int64)
    slices = (W_q.size + W_k.size + W_v.size) // n_heads
    output = 0 if own_output is None else W_o.size // n_heads if own_output else W_o.size
    return np.full(n_heads, slices + output, dtype=np.int64)


def _params_sliced(W_q, W_k, W_v, W_o, n_heads):
    """attention_params that cuts d_h // n_heads columns a head: a width the heads do not divide loses its last."""
    W_q, W_v, W_o = np.asarray(W_q), np.asarray(W_v), np.asarray(W_o)
    d_k, d_vk = W_q.shape[1] // n_heads, W_v.shape[1] // n_heads
    return np.full(n_heads, W_q.shape[0] * (2 * d_k + d_vk) + d_vk * W_o.shape[1], dtype=np.int64)


EXERCISES = (
    Exercise("projection_flops", ref.projection_flops, sizes_hidden, chapter_layer_visible, stream=15,
             meets=COUNTS, mistakes=(
        Mistake("factor 4 missing", 7, "There are four projections (Q, K, V and the output), each n·d².",
                lambda n, d: n * d * d),
    ), requirements=rules(ref.projection_flops, lambda n, d: 4 * n * d * d), shows="Checked at 512 tokens of width 768, and on sizes it must refuse."),
    Exercise("score_flops", ref.score_flops, sizes_hidden, chapter_layer_visible, stream=16, meets=COUNTS, mistakes=(
        Mistake("factor 2 missing", 7, "The grid is paid twice: once for the scores Q Kᵀ, once for mixing the values.",
                lambda n, d: n * n * d),
    ), requirements=rules(ref.score_flops, lambda n, d: 2 * n * n * d), shows="At 512 tokens and width 768 the grid costs a third of what the projections cost."),
    Exercise("attention_share", ref.attention_share, sizes_hidden, attention_share_visible, stream=17, meets=COUNTS,
             built_on=("projection_flops", "score_flops"), mistakes=(
        Mistake("factor 2 missing", 7, "Scores and mixing cost 2·n²·d together.",
                lambda n, d: n * n * d / (n * n * d + 4 * n * d * d)),
        Mistake("factor 4 missing", 7, "The projections cost 4·n·d² (four matrices).",
                lambda n, d: 2 * n * n * d / (2 * n * n * d + n * d * d)),
        Mistake("ratio instead of share", 7, "The share is grid / (grid + projections), not grid / projections.",
                lambda n, d: 2 * n * n * d / (4 * n * d * d)),
        Mistake("integer division", 7, "`//` rounds the share down to a whole number (0 below one half): divide "
                "with `/`.", lambda n, d: 2 * n * n * d // (2 * n * n * d + 4 * n * d * d)),
    ), requirements=rules(ref.attention_share, lambda n, d: 2 * n * n * d / (2 * n * n * d + 4 * n * d * d), count=False), shows="At 512 tokens and width 768 the grid is exactly a quarter of the work."),
    Exercise("crossover_length", ref.crossover_length, crossover_length_hidden, crossover_length_visible, stream=18,
             meets=frozenset({"bad shape"}),
             mistakes=(
        Mistake("the square layer's 2·d", 7,
                "n = 2·d needs d_out = d: count each projection from its own matrix's shape, W_o's (d_v, d_out) too.",
                lambda *W: _crossover_with(*W, grid=False)),
        Mistake("output projection left out", 7, "The projections are four: W_o costs n·d_v·d_out too.",
                lambda *W: _crossover_with(*W, output=False)),
        Mistake("mixing counted at d_h", 7,
                "Mixing multiplies the (n, n) weights by the (n, d_v) values: n²·d_v steps, not n²·d_h.",
                lambda *W: _crossover_with(*W, mixing="d_h")),
        Mistake("mixing left out", 7, "The grid is paid twice: n²·d_h for the scores, n²·d_v for mixing the values.",
                lambda *W: _crossover_with(*W, mixing=None)),
        Mistake("rounded down", 7,
                "Return the fewest tokens at which the grid costs at least as much: round the quotient up.",
                lambda *W: _crossover_with(*W, round_up=False)),
    ), requirements=(
        Requirement("the fewest tokens at which the grid costs at least as much as the projections", "rounded down",
                    docstring="The fewest tokens at which the grid costs at least as much as the projections"),
        Requirement("as an integer", lambda *W: float(ref.crossover_length(*W)), docstring="Returns an int"),
        Requirement("Raise a `ValueError` when a matrix is not a non-empty 2-D array or the four do not fit",
                    lambda *W: _crossover_with(*W),  # right for every layer that fits, and no check
                    docstring="Raises ValueError when a matrix is not a non-empty 2-D array or the four do not fit"),
    ), shows="The worked example's matrices, narrower heads, a W_o of another width, and shapes that do not fit."),
    Exercise("mlp_flops", ref.mlp_flops, mlp_flops_hidden, chapter_layer_visible, stream=27, mistakes=(
        Mistake("inner width d instead of 4d", 7, "The MLP widens each token to 4·d and back: 2 · n · d · 4d.",
                lambda n, d: 2 * n * d * d),
        Mistake("one of the two matrices", 7, "There are two matrices, d → 4d and 4d → d: 8·n·d² in all.",
                lambda n, d: 4 * n * d * d),
    ), requirements=rules(ref.mlp_flops, lambda n, d: 8 * n * d * d) + (
        Requirement("as a Python int", _in_floats(ref.mlp_flops)),
        Requirement("Raise a `ValueError` when `n` or `d` is not a positive integer", lambda n, d: 8 * n * d * d),
    ), shows="Checked at 512 tokens of width 768 (there the MLP outweighs the grid), and on sizes it must refuse."),
    Exercise("grid_over_mlp", ref.grid_over_mlp, grid_over_mlp_hidden, grid_over_mlp_visible, stream=28,
             built_on=("score_flops", "mlp_flops"), mistakes=(
        Mistake("ratio inverted", 7, "Divide the grid's work by the MLP's, not the other way round.",
                lambda n, d: 4 * d / n),
        Mistake("factor 2 missing", 7, "The grid is paid twice, scores and mixing: 2·n²·d.",
                lambda n, d: n * n * d / (8 * n * d * d)),
    ), requirements=rules(ref.grid_over_mlp, lambda n, d: 2 * n * n * d / (8 * n * d * d), count=False) + (
        Requirement("as a Python float", lambda n, d: ref.score_flops(n, d) // ref.mlp_flops(n, d)),
    ), shows="At width 768: 1/6 at 512 tokens (the MLP dominates), 10.67 at 32,768 (the grid dominates)."),
    Exercise("score_grid_bytes", ref.score_grid_bytes, score_grid_bytes_hidden, score_grid_bytes_visible, stream=19,
             meets=COUNTS,
             mistakes=(
        Mistake("in MB instead of bytes", 7, "Return bytes; 1 MB = 10⁶ bytes but 1 MiB = 1,048,576 bytes.",
                lambda n, h, b=2: n * n * h * b / 1e6),
        Mistake("in MiB instead of bytes", 7, "Return bytes, not MiB (1 MiB = 1,048,576 bytes).",
                lambda n, h, b=2: n * n * h * b / 2**20),
        Mistake("heads forgotten", 7, "Every head has a score grid of its own.", lambda n, h, b=2: n * n * b),
    ), requirements=rules(ref.score_grid_bytes, lambda n, h, b=2: n * n * h * b), shows="Twelve heads at 512 tokens, 2 bytes a number: 6,291,456 bytes, which is 6 MiB."),
    Exercise("attention_params", ref.attention_params, attention_params_hidden, attention_params_visible, stream=20,
             meets=COUNTS | frozenset({"bad shape"}),
             built_on=("split_heads",), mistakes=(
        Mistake("output projection forgotten", 5, "A head owns its rows of W_o too: d_k rows of d_out weights.",
                lambda *a: _params_with(*a, own_output=None)),
        Mistake("W_o counted whole by every head", 5, "W_o is cut by rows: head m owns rows m·d_k … (m+1)·d_k − 1.",
                lambda *a: _params_with(*a, own_output=False)),
        Mistake("every head given the whole matrices", 5,
                "Cutting into heads splits the columns: a head owns only its slices, so the heads add up to 4·d².",
                lambda *a: _params_with(*a, whole=True)),
    ), requirements=(
        Requirement("as an integer array of shape `(n_heads,)`",
                    lambda *a: ref.attention_params(*a).astype(np.float64)),
        Requirement("Raise a `ValueError` when `n_heads` does not divide a width", _params_sliced),
    ), shows="The worked example's matrices in 1, 2 and 4 heads, a W_o and a W_v of other widths, and shapes that do not fit."),
)
