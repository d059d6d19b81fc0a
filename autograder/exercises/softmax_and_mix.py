"""Notebook 03, softmax and the mix: weights from scores, a soft lookup hardening, attention itself."""

from __future__ import annotations

import numpy as np

from autograder.exercises.inputs import (attention_inputs, f32, forbidding_row, normal_draws, property_examples,
                                         worked)
from autograder.exercises.spec import Exercise, Mistake, Points, case
from autograder.exercises.variants import attention_with, softmax_no_max, softmax_unguarded
from solutions import attention as ref

NOTEBOOK = "03_softmax_and_mix"


def softmax_visible():
    w = worked()
    return [case("the worked example's scaled scores", w.S),
            case("the worked example with the last key forbidden", w.S + w.last_key_forbidden),
            case("scores of ±1e4", np.array([[1e4, 0.0, -1e4], [3e3, 3e3, 1.0]])),
            case("a row whose keys are all forbidden", np.array([[0.5, -np.inf], [-np.inf, -np.inf]]))]


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
                    case("along axis 0", n(6, 3), axis=0),
                    case("a single row of 9", n(9))]


def lead_share_visible():
    return [case("leads of 0, 1 and 4 (the chapter: 0.500, 0.731, 0.982)", np.array([0.0, 1.0, 4.0])),
            case("leads of +1000 and −1000 (a hard match)", np.array([1000.0, -1000.0]))]


def lead_share_hidden(rng):
    n = normal_draws(rng)
    return [case("leads from −6 to 6", np.linspace(-6, 6, 13)),
            case("a grid of leads in float32", n(3, 4, dtype=f32, scale=3)),
            case("leads of ±1e4 and ±40", np.array([1e4, -1e4, 40.0, -40.0])),
            case("a single lead of 2.5", np.float64(2.5))]


def _lead_no_max(lead):
    lead = np.asarray(lead, dtype=float) if np.asarray(lead).dtype.kind != "f" else np.asarray(lead)
    return np.exp(lead) / (np.exp(lead) + 1)


def attention_visible():
    w = worked()
    Q, K, V = w.Q, w.K, w.V
    return [case("the worked example", Q, K, V),
            case("the worked example with the last key forbidden", Q, K, V, mask=w.last_key_forbidden),
            case("cross-attention from 2 queries to the 4 tokens", Q[:2], K, V),
            case("the worked example with queries and keys 100 times larger", 100 * Q, 100 * K, V)]


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
    ] + [case(f"a drawn example: Q {Q.shape}, K {K.shape}, V {V.shape}, {Q.dtype}", Q, K, V)
         for Q, K, V in property_examples(attention_inputs(), 6)]


def layer_counts_visible():
    return [case("512 tokens of width 768, 12 heads (the chapter: 393,216 / 262,144 / 3,145,728)", 512, 768, 12)]


def layer_counts_hidden(rng):
    return [case("1,024 tokens of width 1,024, 16 heads", 1024, 1024, 16),
            case("7 tokens of width 6, 3 heads", 7, 6, 3),
            case("width 10 in 4 heads", 5, 10, 4, raises="ValueError")]


EXERCISES = (
    Exercise("softmax", ref.softmax, softmax_hidden, softmax_visible, stream=6, points=Points(1, 3), mistakes=(
        Mistake("softmax over the wrong axis", 4, "Each row of scores (one query) must add up to one: normalise along `axis`.",
                lambda S, axis=-1: ref.softmax(S, axis=-2 if np.ndim(S) > 1 and axis in (-1, np.ndim(S) - 1) else -1)),
        Mistake("softmax without subtracting the row maximum", 4,
                "exp overflows to inf for large scores (inf/inf is NaN): subtract each row's maximum first.",
                softmax_no_max),
        Mistake("an all-forbidden row not handled", 4,
                "A row of −inf scores has no maximum to take out (−inf − −inf is NaN): give it all-zero weights.",
                softmax_unguarded),
    )),
    Exercise("lead_share", ref.lead_share, lead_share_hidden, lead_share_visible, stream=22, built_on=("softmax",),
             mistakes=(
        Mistake("the trailing key's share", 4, "Return the weight of the key that is ahead: e^lead / (e^lead + 1).",
                lambda lead: 1 - ref.lead_share(lead)),
        Mistake("softmax without subtracting the row maximum", 4,
                "e^lead overflows to inf for a large lead (inf/inf is NaN): subtract the larger score first.",
                _lead_no_max),
        Mistake("raised but not divided by the total", 4, "Divide e^lead by the total e^lead + e^0 of both keys.",
                lambda lead: np.exp(np.asarray(lead, dtype=float))),
    )),
    Exercise("attention", ref.attention, attention_hidden, attention_visible, stream=7, points=Points(1, 3),
             built_on=("raw_scores", "scaled_scores", "softmax"), mistakes=(
        Mistake("no scaling", 3, "Divide the scores by √d_k before the softmax.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, scale=lambda d: 1.0)),
        Mistake("scaled by d_k instead of √d_k", 3, "Divide by the square root of d_k, not by d_k.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, scale=float)),
        Mistake("softmax over the wrong axis", 4, "Each query's row of weights must add up to one (softmax along the keys).",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, axis=-2)),
        Mistake("softmax without subtracting the row maximum", 4, "Large scores overflow: subtract each row's maximum first.",
                lambda Q, K, V, mask=None: attention_with(Q, K, V, mask, softmax=softmax_no_max)),
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
    )),
    Exercise("layer_counts", ref.layer_counts, layer_counts_hidden, layer_counts_visible, stream=23, mistakes=(
        Mistake("heads forgotten", 4, "Every head has its own n × n score grid: n_heads · n² in all.",
                lambda n, d, h: (n * d, n * n, n * n)),
        Mistake("score grid of n × d_k", 4, "A score grid has one number per pair of tokens: n × n, whatever d is.",
                lambda n, d, h: (n * d, n * (d // h), n * d)),
    )),
)
