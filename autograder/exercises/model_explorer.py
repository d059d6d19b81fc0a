"""Notebook 09, the Model Explorer: what the heads of the kit's trained model attend to.

Inputs are weight grids of the shipped model (and of its random starting
weights) on prompts, plus small grids written by hand; expected values come
from `model.heads`, the answer key. Visible cases use the kit's prompt "the
cat sat on the mat ."; hidden cases use held-out sentences and repeated spans
drawn from one stream (HIDDEN_SEED below), shared by the six exercises.
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import numpy as np

from autograder.exercises.inputs import normal_draws, widths_all_different, worked
from autograder.exercises.spec import Exercise, Mistake, Points, Requirement, case, count_edges, small_unsigned
from autograder.exercises.variants import as_computed
from model import grammar, heads
from model.reference import REFERENCE, run, trained, untrained
from model.transformer import HEADS, LAYERS, forward
from solutions import attention as ref

NOTEBOOK = "09_model_explorer"
HIDDEN_SEED = 61_283  # appears nowhere in the notebooks
SECTION = 5  # the chapter's section on heads

# A grid given by hand: row i is where token i looks.
HAND = np.array([[1.0, 0.0, 0.0],
                 [0.25, 0.75, 0.0],
                 [0.2, 0.3, 0.5]])
# "<s> x y x y": the second x (row 3) looks 0.6 at y, the second y (row 4) 0.7 at the second x.
HAND_REPEAT_TOKENS = np.array([0, 5, 6, 5, 6])
HAND_REPEAT = np.array([[1.0, 0.0, 0.0, 0.0, 0.0],
                        [0.5, 0.5, 0.0, 0.0, 0.0],
                        [0.2, 0.3, 0.5, 0.0, 0.0],
                        [0.1, 0.1, 0.6, 0.2, 0.0],
                        [0.1, 0.05, 0.05, 0.7, 0.1]])
# "<s> x y x z x": the last x (row 5) has two targets, y (column 2) and z (column 4).
TWO_TARGETS_TOKENS = np.array([0, 5, 6, 5, 7, 5])
# Grids that put two kinds level, or one kind at exactly the threshold (row i is where token i looks).
PREVIOUS_START_TIE = np.array([[1.0, 0.0, 0.0],   # previous = start = 0.75: "previous" comes first
                               [1.0, 0.0, 0.0],
                               [0.5, 0.5, 0.0]])
SELF_PREVIOUS_TIE = np.array([[1.0, 0.0, 0.0, 0.0],   # self = previous = 0.5: "self" comes first
                              [0.5, 0.5, 0.0, 0.0],
                              [0.0, 0.5, 0.5, 0.0],
                              [0.0, 0.0, 0.5, 0.5]])
SELF_AT_THRESHOLD = np.array([[1.0, 0.0, 0.0],   # self exactly 0.5, previous and start 0.375
                              [0.5, 0.5, 0.0],
                              [0.25, 0.25, 0.5]])


def _logits(model, tokens) -> np.ndarray:
    """(n, V) float64: the model's score of every next word at every position."""
    return run(model, tokens).logits.astype(np.float64)


def _grids(model, tokens) -> list[tuple[str, np.ndarray]]:
    """(name, (n, n) float64 weights) of every head of `model` on `tokens`."""
    weights = run(model, tokens).weights.astype(np.float64)
    return [(f"layer {layer} head {head}", weights[layer, head])
            for layer in range(weights.shape[0]) for head in range(weights.shape[1])]


def _clear(A, tokens) -> bool:
    """Is the kind of this head far from a tie or the threshold (so no rounding can flip it)?"""
    scores = sorted([heads.self_score(A), heads.previous_score(A), heads.start_score(A),
                     heads.induction_score(A, tokens)], reverse=True)
    return abs(scores[0] - heads.THRESHOLD) > 0.02 and scores[0] - scores[1] > 0.02


def _drawn_grid(rng, n: int) -> np.ndarray:
    """(n, n) random causal weights: each row a random split of one over the tokens it may see."""
    A = np.tril(rng.exponential(size=(n, n)))
    return A / A.sum(axis=1, keepdims=True)


@cache
def _shown() -> SimpleNamespace:
    """The visible cases' material: the trained model's heads on the chapter's prompt, and on it written twice."""
    model = trained()
    repeated = grammar.encode("<s> the cat sat on the mat . the cat sat on the mat".split())
    return SimpleNamespace(model=model, repeated=repeated, repeated_grids=_grids(model, repeated),
                           grids=_grids(model, grammar.encode("<s> the cat sat on the mat .".split())))


@cache
def _held_out() -> SimpleNamespace:
    """The hidden cases' material, drawn from HIDDEN_SEED in one fixed order (so every exercise's inputs stay put)."""
    model = trained()
    rng = np.random.default_rng(HIDDEN_SEED)
    sentences = [grammar.sentences(rng, int(rng.integers(8, grammar.CONTEXT + 1))) for _ in range(3)]
    repeats = [grammar.repeats(rng, 1 + 2 * span, span) for span in (6, 9, 15)]
    drawn_7 = {func: _drawn_grid(rng, 7) for func in ("self_score", "previous_score", "start_score")}
    small_alphabet = np.concatenate([[0], rng.integers(1, 4, size=11)])
    drawn_12, drawn_5 = _drawn_grid(rng, 12), _drawn_grid(rng, 5)
    logits_12, logits_5 = rng.standard_normal((12, 4)), rng.standard_normal((5, 8))
    return SimpleNamespace(model=model, random=untrained(model.seed), sentences=sentences, repeats=repeats,
                           drawn_7=drawn_7, small_alphabet=small_alphabet, drawn_12=drawn_12, drawn_5=drawn_5,
                           logits_12=logits_12, logits_5=logits_5)


def _one_kind_visible(func: str):
    def visible():
        head, A = max(_shown().grids, key=lambda g: getattr(heads, func)(g[1]))  # the clearest example of the kind
        return [case("the grid given by hand", HAND),
                case(f"{head} of the trained model on 'the cat sat on the mat .'", A)]
    return visible


def _one_kind_hidden(func: str):
    def hidden(rng):
        h = _held_out()
        cases = [case(f"{name} of the trained model on a hidden sentence of {len(tokens)} tokens", A)
                 for number, tokens in enumerate(h.sentences) for name, A in _grids(h.model, tokens)[number::3]]
        return cases + [case(f"layer 1 head 2 of the random weights on {len(h.sentences[0])} tokens",
                             _grids(h.random, h.sentences[0])[6][1]),
                        case("drawn weights on 7 tokens", h.drawn_7[func]),
                        case("2 tokens", np.array([[1.0, 0.0], [0.3, 0.7]]))]
    return hidden


def induction_score_visible():
    s = _shown()
    head, grid = max(s.repeated_grids, key=lambda g: heads.induction_score(g[1], s.repeated))
    return [case("the grid given by hand on '<s> x y x y'", HAND_REPEAT, HAND_REPEAT_TOKENS),
            case(f"{head} of the trained model on the prompt written twice", grid, s.repeated),
            case("a prompt where no token repeats", HAND_REPEAT[:4, :4], np.array([0, 5, 6, 7])),
            case("drawn weights on '<s> x y x z x' (the last x has two targets)",
                 _drawn_grid(np.random.default_rng(6), 6), TWO_TARGETS_TOKENS),
            case("drawn weights on '<s> x x x' (each x follows an x; t = i is left out)",
                 _drawn_grid(np.random.default_rng(7), 4), np.array([0, 5, 5, 5]))]


def induction_score_hidden(rng):
    h = _held_out()
    cases = [case(f"{name} of the trained model on a hidden span of {len(tokens) // 2} words, twice", A, tokens)
             for tokens in h.repeats for name, A in _grids(h.model, tokens)[4:]]
    return cases + [
        case("the random weights on a hidden repeated span", _grids(h.random, h.repeats[0])[5][1], h.repeats[0]),
        case("a hidden sentence", _grids(h.model, h.sentences[2])[5][1], h.sentences[2]),
        case("drawn weights on 12 tokens of 3 kinds (rows with several targets)", h.drawn_12, h.small_alphabet),
        case("no token repeats", h.drawn_5, np.arange(5)),
    ]


def classify_head_visible():
    s = _shown()
    return [case(f"{name} of the trained model on the prompt written twice", A, s.repeated)
            for name, A in s.repeated_grids if _clear(A, s.repeated)] + [
        case("layer 0 head 0 of the random weights", _grids(untrained(s.model.seed), s.repeated)[0][1], s.repeated),
        case("previous and start tied at 0.75 (previous comes first)", PREVIOUS_START_TIE, np.array([0, 2, 7])),
        case("self and previous tied at 0.5 (self comes first)", SELF_PREVIOUS_TIE, np.array([0, 3, 5, 8])),
        case("self at exactly 0.5, the others below it", SELF_AT_THRESHOLD, np.array([0, 2, 7]))]


def classify_head_hidden(rng):
    h = _held_out()
    cases = [case(f"{name} of the trained model on hidden tokens ({len(tokens)})", A, tokens)
             for tokens in (h.sentences[0], h.repeats[1]) for name, A in _grids(h.model, tokens) if _clear(A, tokens)]
    ties = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    previous_start = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0],
                               [0.5, 0.0, 0.5, 0.0]])
    self_at_half = np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0, 0.0], [0.25, 0.25, 0.5, 0.0, 0.0],
                             [0.25, 0.0, 0.25, 0.5, 0.0], [0.25, 0.0, 0.0, 0.25, 0.5]])
    return cases + [case("random weights", _grids(h.random, h.repeats[2])[2][1], h.repeats[2]),
                    case("self and previous tied at 0.5 (self comes first)", ties, np.array([0, 4, 9])),
                    case("every token on itself", np.eye(6), np.arange(6)),
                    case("previous and start tied at 2/3 (previous comes first)", previous_start,
                         np.array([0, 4, 9, 1])),
                    case("self at exactly 0.5, previous and start at 0.3125", self_at_half, np.array([0, 4, 9, 1, 6])),
                    case("previous at 0.76 and induction at 1.0: both past 0.5, the largest wins", _both_past_half(),
                         np.full(6, 7))]


def _both_past_half() -> np.ndarray:
    """(6, 6) weights on one token written 6 times: each row from 3 on puts 0.6 on the token before it and 0.4
    on token 1, both induction targets; previous scores 0.76, induction 1.0, start 0.2."""
    A = np.zeros((6, 6))
    A[0, 0] = A[1, 0] = A[2, 1] = 1.0
    for i in range(3, 6):
        A[i, i - 1], A[i, 1] = 0.6, 0.4
    return A


def _first_past_half(A, tokens):
    """classify_head that takes the first kind, in order, whose score reaches 0.5."""
    scores = (heads.self_score(A), heads.previous_score(A), heads.start_score(A), heads.induction_score(A, tokens))
    return next((kind for kind, score in zip(heads.KINDS, scores) if score >= heads.THRESHOLD), heads.SPREAD)


def _classify_with(A, tokens, order=heads.KINDS, *, last_of_ties=False, above=False):
    """classify_head trying the kinds in `order`, a tie going to the last of them (`last_of_ties`),
    or a kind needing more than 0.5 (`above`)."""
    score = dict(zip(heads.KINDS, (heads.self_score(A), heads.previous_score(A), heads.start_score(A),
                                   heads.induction_score(A, tokens))))
    tried = list(reversed(order)) if last_of_ties else list(order)
    best = max(tried, key=score.__getitem__)  # the first of the largest
    reached = score[best] > heads.THRESHOLD if above else score[best] >= heads.THRESHOLD
    return best if reached else heads.SPREAD


def copy_score_visible():
    s = _shown()
    return [case("the trained model on the prompt written twice", _logits(s.model, s.repeated), s.repeated),
            case("the random weights on the prompt written twice", _logits(untrained(s.model.seed), s.repeated),
                 s.repeated),
            case("logits given by hand on '<s> x y x y' (the second x predicts y, the second y predicts x)",
                 np.eye(8)[[5, 6, 5, 6, 5]], HAND_REPEAT_TOKENS),
            case("logits given by hand on '<s> x y x z x' (the last x predicts y, its first target)",
                 np.eye(8)[[5, 6, 5, 6, 5, 6]], TWO_TARGETS_TOKENS),
            case("logits given by hand on a prompt where no token repeats", np.eye(8)[[5, 6, 7, 5]],
                 np.array([0, 5, 6, 7]))]


def copy_score_hidden(rng):
    h = _held_out()
    return [case(f"the trained model on a hidden span of {len(tokens) // 2} words, twice", _logits(h.model, tokens), tokens)
            for tokens in h.repeats] + [
        case("the random weights on a hidden repeated span", _logits(h.random, h.repeats[1]), h.repeats[1]),
        case("the trained model on a hidden sentence", _logits(h.model, h.sentences[1]), h.sentences[1]),
        case("drawn logits on 12 tokens of 3 kinds (rows with several targets)", h.logits_12, h.small_alphabet),
        case("no token repeats", h.logits_5, np.arange(5)),
        case("a token written twice in a row (A A), the model predicting A again: no earlier copy to read past",
             np.eye(5)[[0, 3, 2, 4, 1]], np.array([3, 3, 1, 2, 0])),
    ]


def _shifted_targets(tokens, shift: int, with_self: bool = False) -> np.ndarray:
    """Targets t with tokens[t − shift] == tokens[i] (shift 1: the reference's, 0: the copy itself)."""
    tokens = np.asarray(tokens)
    n = len(tokens)
    T = np.zeros((n, n), dtype=bool)
    T[:, shift:] = tokens[:, None] == tokens[None, :n - shift]
    below = np.arange(n)[None, :] <= np.arange(n)[:, None] if with_self else np.arange(n)[None, :] < np.arange(n)[:, None]
    return T & below


def _induction_with(A, tokens, targets, every_row: bool = False) -> float:
    A = np.asarray(A)
    per_row = (A * targets).sum(axis=1)
    rows = targets.any(axis=1)
    if every_row:
        return float(per_row[1:].mean())
    return float(per_row[rows].mean()) if rows.any() else 0.0


def _induction_of_strongest_target(A, tokens) -> float:
    """induction_score with a row's score its largest weight on one target, not the total on all."""
    targets = heads.induction_targets(tokens)
    rows = targets.any(axis=1)
    strongest = np.where(targets, np.asarray(A), 0.0).max(axis=1)
    return float(strongest[rows].mean()) if rows.any() else 0.0


def _induction_unguarded(A, tokens) -> float:
    """induction_score with no answer of its own for a prompt where no row has a target: the mean of nothing."""
    targets = heads.induction_targets(tokens)
    return float(np.mean((np.asarray(A) * targets).sum(axis=1)[targets.any(axis=1)]))


def _copy_hits(logits, tokens, shift: int = 1, latest_only: bool = False) -> list[bool]:
    """Per row with an induction target: is its guess the token at one of its targets (shift 0: the copy
    itself; latest_only: at its last target only)?"""
    targets = _shifted_targets(tokens, shift)
    rows = np.flatnonzero(_shifted_targets(tokens, 1).any(axis=1))
    predicted, tokens = np.asarray(logits).argmax(axis=-1), np.asarray(tokens)
    if latest_only:
        return [bool(predicted[i] == tokens[np.flatnonzero(targets[i])[-1]]) for i in rows]
    return [bool(predicted[i] in tokens[targets[i]]) for i in rows]


def _copy_with(logits, tokens, shift: int = 1, every_row: bool = False, latest_only: bool = False) -> float:
    hits = _copy_hits(logits, tokens, shift, latest_only)
    if every_row:
        return float(sum(hits) / (len(tokens) - 1))
    return float(np.mean(hits)) if hits else 0.0


def _attention_inputs(model, tokens) -> list[tuple[np.ndarray, ...]]:
    """Per layer, (X, W_q, W_k, W_v, W_o): what its multi-head attention received on `tokens` (float32)."""
    seen = {}

    def seeing(layer):
        def attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            seen[layer] = (X, W_q, W_k, W_v, W_o)
            return ref.multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask=mask)
        return attend

    forward(model, tokens, REFERENCE, {layer: seeing(layer) for layer in range(LAYERS)})
    return [seen[layer] for layer in range(LAYERS)]


def _head_qkv(model, tokens, layer: int, head: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One head's queries, keys and values (each (n, d_k), float32) in the model's run on `tokens`."""
    X, W_q, W_k, W_v, _ = _attention_inputs(model, tokens)[layer]
    return tuple(ref.split_heads(X @ W, HEADS)[head] for W in (W_q, W_k, W_v))


# ---------------------------------------------------------------- prefix_gaps (teacher forcing)

TEACHER_FORCING = 6  # the chapter's section on masks: the causal mask and teacher forcing


def _cube_hidden() -> np.ndarray:
    """(4, 4): 'cube' (key 3) hidden from every token, as padding would be; the rest allowed."""
    return worked().last_key_forbidden


def _drawn_mask(rng, n: int) -> np.ndarray:
    """(n, n) additive mask allowing each pair with probability 0.6, and every token itself."""
    allowed = (rng.random((n, n)) < 0.6) | np.eye(n, dtype=bool)
    return np.where(allowed, 0.0, -np.inf)


def _window(n: int, width: int) -> np.ndarray:
    """(n, n) causal mask that also hides the tokens more than `width − 1` before each query."""
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j > i - width), 0.0, -np.inf)


def prefix_gaps_visible():
    w = worked()
    s = _shown()
    Q, K, V = _head_qkv(s.model, s.repeated, 0, 0)
    return [case("the worked example, causal mask", w.Q, w.K, w.V, ref.causal_mask(4)),
            case("the worked example, a mask of zeros (every token sees every token)", w.Q, w.K, w.V, np.zeros((4, 4))),
            case("the worked example, 'cube' hidden from every token", w.Q, w.K, w.V, _cube_hidden()),
            case("every size different: its first 3 tokens, d_k = 2, d_v = 4, causal mask", w.Q[:3, :2], w.K[:3, :2],
                 w.V[:3], ref.causal_mask(3)),
            case("layer 0 head 0 of the trained model on the prompt written twice, causal mask (float32)", Q, K, V,
                 ref.causal_mask(len(Q))),
            case("the worked example's 4 queries with keys and values of 3 tokens", w.Q, w.K[:3], w.V[:3],
                 ref.causal_mask(4)[:, :3], raises="ValueError"),
            case("a mask of one row, (1, 4)", w.Q, w.K, w.V, np.zeros((1, 4)), raises="ValueError")]


def prefix_gaps_hidden(rng):
    n = normal_draws(rng)
    h = _held_out()
    induction_q, induction_k, induction_v = _head_qkv(h.model, h.repeats[0], 1, 0)
    Q, K, V = n(8, 5), n(8, 5), n(8, 3)
    return [case("8 tokens, causal mask", Q, K, V, ref.causal_mask(8)),
            case("8 tokens, a mask of zeros", Q, K, V, np.zeros((8, 8))),
            case("8 tokens, a drawn mask (some later keys allowed, some earlier ones hidden)", Q, K, V,
                 _drawn_mask(rng, 8)),
            case("7 tokens, a causal mask that hides all but the last 3 tokens", n(7, 4), n(7, 4), n(7, 6),
                 _window(7, 3)),
            case("6 tokens, the last 2 hidden from every token", n(6, 4), n(6, 4), n(6, 4),
                 ref.padding_mask(np.array([4]), 6)[0] + np.zeros((6, 6))),
            case("layer 1 head 0 of the trained model on a hidden repeated span, causal mask (float32)",
                 induction_q, induction_k, induction_v, ref.causal_mask(len(induction_q)), checks="float32"),
            case("the same head, a mask of zeros (float32)", induction_q, induction_k, induction_v,
                 np.zeros((len(induction_q),) * 2)),
            case("5 queries, keys and values of 6 tokens", n(5, 4), n(6, 4), n(6, 4), np.zeros((5, 6)),
                 raises="ValueError", checks="bad shape"),
            case("values of 4 tokens for 5", n(5, 4), n(5, 4), n(4, 4), ref.causal_mask(5), raises="ValueError",
                 checks="bad shape"),
            case("a mask of one row, (1, 6)", n(6, 4), n(6, 4), n(6, 4), np.zeros((1, 6)), raises="ValueError",
                 checks="bad shape"),
            case("Q, K and V batches of one (1, 5, 4), a mask (1, 1)", n(1, 5, 4), n(1, 5, 4), n(1, 5, 4),
                 np.zeros((1, 1)), raises="ValueError", checks="bad shape"),
            # Its one mutant no other case kills is `V.shape[0] is not n`, which CPython's cache of small integers
            # hides below 257. In float32: its answer runs attention on all 261 prefixes, and every stand-in call
            # carries its prefix's mask and brings back its weights, half the bytes of float64's.
            case("sizes past 256: 260 tokens of width 1, causal mask (float32)", n(260, 1, dtype=np.float32),
                 n(260, 1, dtype=np.float32), n(260, 1, dtype=np.float32), ref.causal_mask(260).astype(np.float32),
                 checks="float32"),
            case("8-bit unsigned integers of 0 and 1 (nothing wraps round), causal mask", small_unsigned(5, 3),
                 small_unsigned(5, 3, k=1), small_unsigned(5, 2, k=2), ref.causal_mask(5), checks="integers")]


def _prefix_gaps_with(Q, K, V, mask, *, short=False, prefix_masked=True, row=-1, largest=True, checked=True):
    """prefix_gaps with one thing done differently: a prefix one token short (`short`), the mask
    left out of the prefix runs, another row of the prefix run, the mean gap, or no shape check."""
    if checked:
        return _prefix_gaps_with(*_checked_prefix_inputs(Q, K, V, mask), short=short, prefix_masked=prefix_masked,
                                 row=row, largest=largest, checked=False)
    Q, K, V, mask = (np.asarray(a) for a in (Q, K, V, mask))
    whole, _ = ref.attention(Q, K, V, mask)
    gaps = np.zeros(len(Q), dtype=whole.dtype)
    for i in range(len(Q)):
        p = max(i, 1) if short else i + 1
        alone, _ = ref.attention(Q[:p], K[:p], V[:p], mask[:p, :p] if prefix_masked else None)
        difference = np.abs(whole[i] - alone[row])
        gaps[i] = difference.max() if largest else difference.mean()
    return gaps


def _checked_prefix_inputs(Q, K, V, mask):
    ref.prefix_gaps(Q, K, V, mask)  # raises the reference's ValueError on shapes that do not fit
    return Q, K, V, mask


# ---------------------------------------------------------------- ablate_head (what a head does, by removing it)


def ablate_head_visible():
    w = worked()
    s = _shown()
    X, W_q, W_k, W_v, W_o = _attention_inputs(s.model, s.repeated)[1]
    return [case("the worked example, 2 heads, head 0 removed", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, 0),
            case("the worked example, 2 heads, head 1 removed, causal mask", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, 1,
                 mask=ref.causal_mask(4)),
            case("layer 1 of the trained model on the prompt written twice, head 0 removed, causal mask (float32)",
                 X, W_q, W_k, W_v, W_o, HEADS, 0, mask=ref.causal_mask(len(X))),
            case("every size different: 3 tokens of width 4, d_h = 14 in 2 heads of 7, d_out = 6, head 1 removed",
                 w.X[:3], *widths_all_different(), 2, 1),
            case("head 2 of 2", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, 2, raises="ValueError"),
            case("head −1", w.X, w.W_q, w.W_k, w.W_v, w.W_o, 2, -1, raises="ValueError")]


def ablate_head_hidden(rng):
    n = normal_draws(rng)

    def W(d, e):
        return n(d, e, scale=d ** -0.5)

    h = _held_out()
    X0, *weights0 = _attention_inputs(h.model, h.sentences[0])[0]
    X1, *weights1 = _attention_inputs(h.model, h.repeats[1])[1]
    X = n(7, 12)
    return [case("7 tokens of width 12, 3 heads, head 1 removed", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, 1),
            case("6 tokens of width 8, 4 heads, head 3 removed, causal mask", n(6, 8), W(8, 8), W(8, 8), W(8, 8),
                 W(8, 8), 4, 3, mask=ref.causal_mask(6)),
            case("width 8 to 12 heads' width to 5 outputs, 4 heads, head 0 removed", n(9, 8), W(8, 12), W(8, 12),
                 W(8, 12), W(12, 5), 4, 0),
            case("one head of one: everything removed", n(5, 6), W(6, 6), W(6, 6), W(6, 6), W(6, 6), 1, 0),
            case("layer 0 of the trained model on a hidden sentence, head 1 removed, causal mask (float32)", X0,
                 *weights0, HEADS, 1, mask=ref.causal_mask(len(X0)), checks="float32"),
            case("layer 1 of the trained model on a hidden repeated span, head 2 removed, causal mask (float32)", X1,
                 *weights1, HEADS, 2, mask=ref.causal_mask(len(X1))),
            case("head 3 of 3", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, 3, raises="ValueError"),
            case("head −1 of 3", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, -1, raises="ValueError"),
            case("head 5 of 3", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, 5, raises="ValueError"),
            case("head 1.0", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, 1.0, raises="ValueError"),
            case("head True", X, W(12, 12), W(12, 12), W(12, 12), W(12, 12), 3, True, raises="ValueError"),
            case("8-bit unsigned integers of 0 and 1 (nothing wraps round), 2 heads, head 1 removed",
                 small_unsigned(5, 4), small_unsigned(4, 4, k=1), small_unsigned(4, 4, k=2), small_unsigned(4, 4),
                 small_unsigned(4, 3, k=1), 2, 1, checks="integers")] + \
        count_edges((n(4, 6), W(6, 6), W(6, 6), W(6, 6), W(6, 6), 2, 0), {5: "n_heads"})


def _ablate_with(X, W_q, W_k, W_v, W_o, n_heads, head, mask=None, *, zeroed="output", checked=True):
    """ablate_head with something else zeroed: the head's columns after W_o ("columns"), token `head`'s
    row ("token"), the head's scores ("scores": even weights), every other head ("others"); or no check of `head`."""
    if checked and (isinstance(head, bool) or not isinstance(head, (int, np.integer)) or not 0 <= head < n_heads):
        raise ValueError(f"head must be an integer from 0 to {n_heads - 1}, got {head!r}")
    Q, K, V = (ref.split_heads(as_computed(X) @ as_computed(W), n_heads) for W in (W_q, W_k, W_v))
    if zeroed == "scores":
        Q = Q.copy()
        Q[..., head, :, :] = 0
    out, _ = ref.attention(Q, K, V, mask)
    if zeroed in ("output", "others"):
        kept = out[..., head, :, :].copy()
        out[..., head, :, :] = 0
        if zeroed == "others":
            out[...] = 0
            out[..., head, :, :] = kept
    joined = ref.merge_heads(out)
    if zeroed == "token":
        joined[..., head, :] = 0
    result = joined @ np.asarray(W_o).astype(joined.dtype, copy=False)
    if zeroed == "columns":
        width = joined.shape[-1] // n_heads
        result[..., head * width:(head + 1) * width] = 0
    return result


START_ROW_COUNTED = "the start token's row counted"
START_ROW_EXPLAINED = "Average over rows 1 … n−1: row 0 can only look at itself."

EXERCISES = (
    Exercise("self_score", heads.self_score, _one_kind_hidden("self_score"), _one_kind_visible("self_score"), mistakes=(
        Mistake(START_ROW_COUNTED, SECTION, START_ROW_EXPLAINED, lambda A: float(np.diagonal(np.asarray(A)).mean())),
    ), shows="On the grid given by hand the answer is (0.75 + 0.5) / 2 = 0.625; then heads of the trained model."),
    Exercise("previous_score", heads.previous_score, _one_kind_hidden("previous_score"),
             _one_kind_visible("previous_score"), mistakes=(
        Mistake("one token ahead", SECTION, "The previous token of row i is column i − 1 (offset −1), below the diagonal.",
                lambda A: float(np.diagonal(np.asarray(A), offset=1).mean())),
        Mistake("divided by n", SECTION, "There are n − 1 rows with a previous token: take the mean of those.",
                lambda A: float(np.diagonal(np.asarray(A), offset=-1).sum() / len(A))),
    ), shows="On the grid given by hand the answer is (0.25 + 0.3) / 2 = 0.275."),
    Exercise("start_score", heads.start_score, _one_kind_hidden("start_score"), _one_kind_visible("start_score"),
             mistakes=(
        Mistake(START_ROW_COUNTED, SECTION, START_ROW_EXPLAINED, lambda A: float(np.asarray(A)[:, 0].mean())),
        Mistake("row 0 instead of column 0", SECTION, "Attention to the start token is column 0: A[1:, 0].",
                lambda A: float(np.asarray(A)[0, 1:].mean())),
    ), shows="On the grid given by hand the answer is (0.25 + 0.2) / 2 = 0.225."),
    Exercise("induction_score", heads.induction_score, induction_score_hidden, induction_score_visible,
             points=Points(1, 2), mistakes=(
        Mistake("the earlier copy instead of the token after it", SECTION,
                "An induction head looks at B in '… A B … A', the token after the first A: tokens[t − 1] == tokens[i].",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 0))),
        Mistake("the token itself counted as a target", SECTION, "Targets are t < i: leave out t = i.",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 1, with_self=True))),
        Mistake("averaged over every row", SECTION, "Average only over the rows that have a target.",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 1), every_row=True)),
    ), requirements=(
        Requirement("the token *after* an earlier copy of the current token",
                    "the earlier copy instead of the token after it", docstring="tokens[t − 1] == tokens[i]"),
        Requirement("(`t = i` is left out", "the token itself counted as a target", docstring="1 ≤ t < i"),
        Requirement("A row with at least one target counts", "averaged over every row",
                    docstring="over the rows i with a target t"),
        Requirement("its score is the total weight on its targets", _induction_of_strongest_target,
                    docstring="the row's total weight on its targets"),
        Requirement("or `0.0` when no row has a target", _induction_unguarded, docstring="0.0 when no row has one"),
    ), shows=("On <s> x y x y with the grid given by hand, rows 3 and 4 count: (0.6 + 0.7) / 2 = 0.65. Then heads of the\n"
              "trained model, a prompt where no token repeats, a row with two targets, and <s> x x x.")),
    Exercise("classify_head", heads.classify_head, classify_head_hidden, classify_head_visible, points=Points(1, 2),
             built_on=("self_score", "previous_score", "start_score", "induction_score"), requirements=(
        Requirement("computes the scores in this order: self, previous, start, induction",
                    lambda A, tokens: _classify_with(A, tokens, order=sorted(heads.KINDS)),
                    docstring='Returns "self", "previous", "start" or "induction"'),
        Requirement("If the largest is at least 0.5", lambda A, tokens: _classify_with(A, tokens, above=True),
                    docstring="(the largest score, if at least 0.5)"),
        Requirement("the largest wins, not the first past 0.5", _first_past_half, unseen="the visible grids have one kind past 0.5"),
        Requirement("(on a tie, the first in that order)",
                    lambda A, tokens: _classify_with(A, tokens, last_of_ties=True)),
        Requirement("Return a plain Python `str`", lambda A, tokens: np.str_(heads.classify_head(A, tokens))),
    ), shows=('Heads of the trained model on the prompt "the cat sat on the mat" written twice, and one spread grid;\n'
              "then grids given by hand: two ties, and a score of exactly 0.5.")),
    Exercise("copy_score", heads.copy_score, copy_score_hidden, copy_score_visible, points=Points(1, 2), mistakes=(
        Mistake("the earlier copy instead of the token after it", SECTION,
                "In '… A B … A' the model at the second A should predict B, the token after the first A.",
                lambda logits, tokens: _copy_with(logits, tokens, shift=0)),
        Mistake("averaged over every row", SECTION, "Average only over the rows whose token appeared before.",
                lambda logits, tokens: _copy_with(logits, tokens, every_row=True)),
    ), requirements=(
        Requirement("Use the rows `i` that have at least one induction target", "averaged over every row",
                    docstring="over the rows i with an induction target"),
        Requirement("with the same targets as `induction_score`", "the earlier copy instead of the token after it",
                    docstring="the token that followed an earlier copy of the current one"),
        Requirement("the id of the token at one of its targets",
                    lambda logits, tokens: _copy_with(logits, tokens, latest_only=True)),
        Requirement("Return the fraction of those rows that are copies",
                    lambda logits, tokens: sum(_copy_hits(logits, tokens)),
                    docstring="the fraction whose highest logit is tokens[t] for one of its targets t"),
        Requirement("as a Python float", lambda logits, tokens: np.array(_copy_hits(logits, tokens), dtype=float)),
        Requirement("or `0.0` when no row has a target",
                    lambda logits, tokens: float(np.mean(_copy_hits(logits, tokens))),
                    docstring="0.0 when no row has a target"),
    ), shows=("The trained model on the prompt written twice, the random weights, and logits given by hand\n"
              "(a row with two targets, a prompt where no token repeats).")),
    Exercise("prefix_gaps", ref.prefix_gaps, prefix_gaps_hidden, prefix_gaps_visible, stream=42,
             meets=frozenset({"float32", "bad shape", "integers"}), points=Points(1, 2),
             built_on=("raw_scores", "scaled_scores", "softmax", "attention"), mistakes=(
        Mistake("the prefix one token short", TEACHER_FORCING,
                "Position i belongs to its own prefix: run on the first i + 1 tokens, Q[:i + 1] and so on.",
                lambda *a: _prefix_gaps_with(*a, short=True)),
        Mistake("the mask left out of the prefix runs", TEACHER_FORCING,
                "Pass the mask to the prefix runs too, cut to their size: mask[:i + 1, :i + 1].",
                lambda *a: _prefix_gaps_with(*a, prefix_masked=False)),
        Mistake("the first row of the prefix run", TEACHER_FORCING,
                "Position i is the last token of its prefix: compare with the last row, [-1].",
                lambda *a: _prefix_gaps_with(*a, row=0)),
        Mistake("the mean difference instead of the largest", TEACHER_FORCING,
                "The gap is the largest absolute difference along the row, not its mean.",
                lambda *a: _prefix_gaps_with(*a, largest=False)),
    ), requirements=(
        Requirement("run it again on the first `i + 1` tokens alone", "the prefix one token short"),
        Requirement("with the mask cut to its top-left `(i + 1) × (i + 1)` corner",
                    "the mask left out of the prefix runs", docstring="(the mask cut to them)"),
        Requirement("the largest absolute difference", "the mean difference instead of the largest",
                    docstring="the largest |difference|"),
        Requirement("the last row of the second's", "the first row of the prefix run",
                    docstring="the last row of attention on the first i + 1"),
        Requirement("in the dtype of attention's output (float32 for float32 inputs)",
                    lambda *a: ref.prefix_gaps(*a).astype(np.float64)),
        Requirement("Raise a `ValueError` when `Q`, `K`, `V` and `mask` are not of those shapes for one `n`",
                    lambda *a: _prefix_gaps_with(*a, checked=False)),
    ), shows=("The worked example with a causal mask, with a mask of zeros and with 'cube' hidden from every token;\n"
              "then one head of the trained model (float32), and shapes that do not fit (a ValueError).")),
    Exercise("ablate_head", ref.ablate_head, ablate_head_hidden, ablate_head_visible, stream=43,
             meets=frozenset({"float32", "integers"}), points=Points(1, 2),
             built_on=("raw_scores", "scaled_scores", "softmax", "attention", "split_heads", "merge_heads"), mistakes=(
        Mistake("the head's columns zeroed after W_o", SECTION,
                "W_o mixes every head into every output column: zero the head's output before multiplying by W_o.",
                lambda *a, **k: _ablate_with(*a, **k, zeroed="columns")),
        Mistake("a token zeroed instead of a head", SECTION,
                "Zero head `head` of the (n_heads, n, d_k) heads, every token of it, not row `head` of the joined heads.",
                lambda *a, **k: _ablate_with(*a, **k, zeroed="token")),
        Mistake("the head's scores zeroed instead of its output", SECTION,
                "Zero scores only make the head's weights even; the head still writes its mean value: zero its output.",
                lambda *a, **k: _ablate_with(*a, **k, zeroed="scores")),
        Mistake("every other head zeroed", SECTION, "Remove the one head `head`; the others stay as they are.",
                lambda *a, **k: _ablate_with(*a, **k, zeroed="others")),
    ), requirements=(
        Requirement("set the output of head number `head` to zero", "the head's scores zeroed instead of its output",
                    docstring="its output zeroed"),
        Requirement("before the heads are joined and multiplied by `W_o`", "the head's columns zeroed after W_o",
                    docstring="before W_o"),
        Requirement("every row of it", "a token zeroed instead of a head"),
        Requirement("the other heads are left as they were", "every other head zeroed"),
        Requirement("float32 for float32 inputs", lambda *a, **k: ref.ablate_head(*a, **k).astype(np.float64)),
        Requirement("Raise a `ValueError` when `head` is not an integer from 0 to `n_heads − 1`",
                    lambda *a, **k: _ablate_with(*a, **k, checked=False),
                    docstring="Raises ValueError when head is not an integer from 0 to n_heads − 1"),
    ), shows=("The worked example in 2 heads (one without a mask, one causal), layer 1 of the trained model (float32),\n"
              "then heads that do not exist (a ValueError).")),
)
