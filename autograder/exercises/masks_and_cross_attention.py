"""Notebook 05, masks and cross-attention: causal, padding and group masks, and what they promise."""

from __future__ import annotations

import numpy as np

from autograder.exercises.inputs import f32, normal_draws, worked
from autograder.exercises.spec import Exercise, Mistake, Points, case
from solutions import attention as ref

NOTEBOOK = "05_masks_and_cross_attention"

# The robot layout of chapter section 6: picture, words, joint reading, actions.
ROBOT_GROUPS = [256, 12, 1, 8]
ROBOT_ALLOWED = [[True, True, False, False],
                 [True, True, False, False],
                 [True, True, True, False],
                 [True, True, True, True]]


def causal_mask_visible():
    return [case("4 tokens", 4)]


def causal_mask_hidden(rng):
    return [case("1 token", 1), case("9 tokens", 9), case("0 tokens", 0, raises="ValueError", checks="bad size")]


def first_changed_output_visible():
    w = worked()
    return [case("the worked example, token 2 changed, causal mask", w.X, w.W_q, w.W_k, w.W_v, 2,
                 mask=ref.causal_mask(4)),
            case("the worked example, token 2 changed, no mask", w.X, w.W_q, w.W_k, w.W_v, 2)]


def first_changed_output_hidden(rng):
    n = normal_draws(rng)

    def W():
        return n(6, 6, scale=0.5)

    return [
        case("token 3 of 7 changed, causal mask", n(7, 6), W(), W(), W(), 3, mask=ref.causal_mask(7)),
        case("token 5 of 6 changed, no mask", n(6, 6), W(), W(), W(), 5),
        case("the last real token of 4 changed under a padding mask of length 4 in 6",
             n(6, 6), W(), W(), W(), 3, mask=ref.padding_mask(np.array([4]), 6)[0]),
        case("a padding token changed under a padding mask (nothing real may see it)",
             n(6, 6), W(), W(), W(), 5, mask=ref.padding_mask(np.array([4]), 6)[0]),
        case("a mask that lets each token see one token ahead", n(6, 6), W(), W(), W(), 4,
             mask=np.triu(np.full((6, 6), -np.inf), k=2)),
        case("token 0 changed, causal mask", n(5, 6), W(), W(), W(), 0, mask=ref.causal_mask(5)),
        case("a position past the end", n(4, 6), W(), W(), W(), 4, raises="ValueError"),
    ]


def _changed_rows(X, W_q, W_k, W_v, j, mask=None):
    X = np.asarray(X, dtype=np.float64)
    changed = X.copy()
    changed[j] += 1.0
    before, _ = ref.attention(*ref.project_qkv(X, W_q, W_k, W_v), mask)
    after, _ = ref.attention(*ref.project_qkv(changed, W_q, W_k, W_v), mask)
    return (before != after).any(axis=-1)


def padding_mask_visible():
    return [case("lengths 4 and 2 in a grid of 4", np.array([4, 2]), 4)]


def padding_mask_hidden(rng):
    return [case("lengths 3, 7, 1 in a grid of 7", np.array([3, 7, 1]), 7),
            case("one sequence of full length 5", np.array([5]), 5),
            case("a length of 0", np.array([3, 0]), 4, raises="ValueError", checks="bad size"),
            case("lengths as a (2, 1) column", np.array([[3], [2]]), 4, raises="ValueError", checks="bad shape")]


def padding_leak_visible():
    w = worked()
    cube_is_padding = ref.padding_mask(np.array([3]), 4)
    _, weights = ref.attention(w.Q, w.K, w.V)
    _, padded_weights = ref.attention(w.Q, w.K, w.V, cube_is_padding[0])
    return [case("'cube' as padding, no mask (the chapter: 'up' puts 0.681 on it)", weights[None], np.array([3])),
            case("'cube' as padding, with the padding mask", padded_weights[None], np.array([3]))]


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
            case("a length of 0", unmasked, np.array([8, 0, 2]), raises="ValueError")]


def _padding_leak_with(weights, lengths, *, every_query=False, mean=False):
    weights, lengths = np.asarray(weights, dtype=np.float64), np.asarray(lengths)
    n = weights.shape[-1]
    position = np.arange(n)
    on_padding = np.where(position[None, None, :] >= lengths[:, None, None], weights, 0.0).sum(axis=-1)
    real = np.ones_like(on_padding, dtype=bool) if every_query else position[None, :] < lengths[:, None]
    if mean:
        return np.where(real, on_padding, 0.0).sum(axis=-1) / real.sum(axis=-1)
    return np.where(real, on_padding, 0.0).max(axis=-1)


def block_mask_visible():
    return [case("the robot layout (256, 12, 1, 8 tokens)", np.array(ROBOT_GROUPS), np.array(ROBOT_ALLOWED))]


def block_mask_hidden(rng):
    return [case("three groups, each may see itself and earlier groups", np.array([2, 3, 1]),
                 np.array([[True, False, False], [True, True, False], [True, True, True]])),
            case("two groups that only see each other", np.array([3, 2]), np.array([[False, True], [True, False]])),
            case("an allowed table of 2 groups for 3", np.array([2, 3, 1]), np.ones((2, 2), dtype=bool),
                 raises="ValueError", checks="bad shape"),
            case("a group of 0 tokens", np.array([2, 0]), np.ones((2, 2), dtype=bool), raises="ValueError",
                 checks="bad size")]


# A mask written with a large finite number: exp(−1e9 + s) is 0 only by underflow, and a row of it
# is not all forbidden (softmax spreads the weight evenly instead of giving zeros).
_MINUS_1E9 = Mistake("−1e9 written for −inf", 6, "Forbid a pair with −inf (np.inf), not a large finite number: "
                     "only −inf gives a weight of exactly 0, and an all-forbidden row all zeros.", None)


def _finite(mask):
    """The mask with −1e9 in place of every −inf."""
    return np.where(np.isneginf(mask), -1e9, mask)


EXERCISES = (
    Exercise("causal_mask", ref.causal_mask, causal_mask_hidden, causal_mask_visible, stream=11, mistakes=(
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
    )),
    Exercise("first_changed_output", ref.first_changed_output, first_changed_output_hidden,
             first_changed_output_visible, stream=25, points=Points(1, 2),
             built_on=("project_qkv", "raw_scores", "scaled_scores", "softmax", "attention"), mistakes=(
        Mistake("the last unchanged position", 6, "Return the first position that changed, not the one before it.",
                lambda *a, **k: int(np.argmax(_changed_rows(*a, **k))) - 1 if _changed_rows(*a, **k).any()
                else len(a[0]) - 1),
        Mistake("how many outputs changed", 6, "Return the first position whose output changed, not the count.",
                lambda *a, **k: int(_changed_rows(*a, **k).sum())),
    )),
    Exercise("padding_mask", ref.padding_mask, padding_mask_hidden, padding_mask_visible, stream=12, mistakes=(
        _MINUS_1E9._replace(variant=lambda lengths, n: _finite(ref.padding_mask(lengths, n))),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda lengths, n: -ref.padding_mask(lengths, n)),
        Mistake("padding mask off by one", 6, "Position `length` itself is padding: forbid j ≥ length.",
                lambda lengths, n: ref.padding_mask(np.minimum(np.asarray(lengths) + 1, n), n)),
    )),
    Exercise("padding_leak", ref.padding_leak, padding_leak_hidden, padding_leak_visible, stream=26,
             points=Points(1, 2), mistakes=(
        Mistake("padding queries counted too", 6, "Only real queries (i < length) matter: padding rows are thrown away.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, every_query=True)),
        Mistake("mean instead of the largest", 6, "Take the largest leak over the real queries: one bad row is enough.",
                lambda weights, lengths: _padding_leak_with(weights, lengths, mean=True)),
    )),
    Exercise("block_mask", ref.block_mask, block_mask_hidden, block_mask_visible, stream=13, points=Points(1, 2),
             mistakes=(
        _MINUS_1E9._replace(variant=lambda sizes, allowed: _finite(ref.block_mask(sizes, allowed))),
        Mistake("allowed read by column", 6, "allowed[a][b] says whether group a (the row, asking) may look at group b.",
                lambda sizes, allowed: ref.block_mask(sizes, np.asarray(allowed).T)),
        Mistake("mask sign flipped", 6, "Forbidden pairs get −inf, not +inf.",
                lambda sizes, allowed: -ref.block_mask(sizes, allowed)),
    )),
)
