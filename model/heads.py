"""What a head attends to: the answer key of notebook 09's exercises.

Every measure takes one head's weight grid ``A`` (n, n), row i being where
token i looks (rows sum to 1, nothing above the diagonal), and averages over
the rows 1 … n−1: row 0 is the start token, which can only look at itself, so
it would count for every kind of head at once.
"""

from __future__ import annotations

import numpy as np

from model import grammar
from model.reference import run
from model.transformer import Model

KINDS = ("self", "previous", "start", "induction")  # in the order ties are broken
SPREAD = "spread"
THRESHOLD = 0.5  # a head is of a kind when its score for that kind reaches this


def self_score(A) -> float:
    """Mean weight of a token on itself: A[i, i] over rows i ≥ 1."""
    A = np.asarray(A)
    return float(np.diagonal(A)[1:].mean())


def previous_score(A) -> float:
    """Mean weight of a token on the token just before it: A[i, i − 1] over rows i ≥ 1."""
    A = np.asarray(A)
    return float(np.diagonal(A, offset=-1).mean())


def start_score(A) -> float:
    """Mean weight of a token on the start token: A[i, 0] over rows i ≥ 1."""
    A = np.asarray(A)
    return float(A[1:, 0].mean())


def induction_targets(tokens) -> np.ndarray:
    """(n, n) bool: T[i, t] when the token before t is the token at i and t < i.

    In "… A B … A", the second A (row i) targets B (column t): the token after
    an earlier copy of itself. t = i is left out (that would be the token itself).
    """
    tokens = np.asarray(tokens)
    n = len(tokens)
    T = np.zeros((n, n), dtype=bool)
    T[:, 1:] = tokens[:, None] == tokens[None, :-1]
    return T & (np.arange(n)[None, :] < np.arange(n)[:, None])


def induction_score(A, tokens) -> float:
    """Mean, over the rows whose token appeared before, of the weight on the induction targets.

    0.0 when no token repeats.
    """
    T = induction_targets(tokens)
    rows = T.any(axis=1)
    if not rows.any():
        return 0.0
    return float((np.asarray(A) * T).sum(axis=1)[rows].mean())


def copy_score(logits, tokens) -> float:
    """How often the model predicts what followed an earlier copy of the current token.

    logits: (n, V) the model's score of every next word at every position;
    tokens: (n,) the ids it read. Over the rows i with an induction target
    (see `induction_targets`), the fraction whose highest logit is one of the
    tokens at those targets: in "… A B … A" the model, at the second A,
    predicts B. 0.0 when no token repeats.
    """
    T = induction_targets(tokens)
    rows = np.flatnonzero(T.any(axis=1))
    if not rows.size:
        return 0.0
    predicted = np.asarray(logits).argmax(axis=-1)
    tokens = np.asarray(tokens)
    return float(np.mean([predicted[i] in tokens[T[i]] for i in rows]))


def kind_of(scores) -> str:
    """The kind whose score (in `KINDS` order) is largest, if it reaches THRESHOLD; else 'spread'."""
    best = int(np.argmax(scores))
    return KINDS[best] if scores[best] >= THRESHOLD else SPREAD


def classify_head(A, tokens) -> str:
    """'self', 'previous', 'start', 'induction' or 'spread' for one head's grid on `tokens`."""
    return kind_of([self_score(A), previous_score(A), start_score(A), induction_score(A, tokens)])


# ---------------------------------------------------------------- whole models


def held_out(seed: int = 2024, count: int = 64, span: int = 10) -> list[np.ndarray]:
    """`count` sequences training never drew: the start token, then a span of `span`
    distinct random words, written twice. Random words keep the grammar's habits
    (a noun two tokens after "the") from passing for attention to a position."""
    rng = np.random.default_rng([seed, 77])
    return [grammar.repeats(rng, 1 + 2 * span, span) for _ in range(count)]


def _table(model: Model, sequences, measures) -> np.ndarray:
    """(LAYERS, HEADS, len(measures)): each measure(A, tokens) averaged over `sequences`."""
    return np.mean([[[[measure(A, tokens) for measure in measures] for A in layer]
                     for layer in run(model, tokens).weights] for tokens in sequences], axis=0)


def profile(model: Model, seed: int = 2024, count: int = 64) -> np.ndarray:
    """(LAYERS, HEADS, 4): every head's mean self, previous, start and induction
    scores on `held_out` repeated sequences."""
    return _table(model, held_out(seed, count), [lambda A, _: self_score(A), lambda A, _: previous_score(A),
                                                 lambda A, _: start_score(A), induction_score])


def kinds(model: Model, **held_out_options) -> list[list[str]]:
    """[layer][head] → the kind of every head, from its `profile`."""
    return [[kind_of(head) for head in layer] for layer in profile(model, **held_out_options)]
