"""The cases of notebook 09's exercises: what heads of the explorer's model attend to.

Inputs are weight grids of the shipped model (and of its random starting
weights) on prompts, plus small grids written by hand; expected values come
from `model.heads`, the answer key, never from a typed-in number. Visible
cases use the kit's prompt "the cat sat on the mat ."; hidden cases use
held-out sentences and repeated spans drawn from seeds that appear nowhere
in the notebooks. Cases are dicts in the format of `autograder.cases`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from autograder.cases import MODEL_FUNCTIONS
from autograder.mistakes import Mistake
from model import grammar, heads
from model.reference import run, trained, untrained

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


MODEL_MISTAKES: dict[str, list[Mistake]] = {
    "self_score": [
        Mistake("the start token's row counted", SECTION, "Average over rows 1 … n−1: row 0 can only look at itself.",
                lambda A: float(np.diagonal(np.asarray(A)).mean())),
    ],
    "previous_score": [
        Mistake("one token ahead", SECTION, "The previous token of row i is column i − 1 (offset −1), below the diagonal.",
                lambda A: float(np.diagonal(np.asarray(A), offset=1).mean())),
        Mistake("divided by n", SECTION, "There are n − 1 rows with a previous token: take the mean of those.",
                lambda A: float(np.diagonal(np.asarray(A), offset=-1).sum() / len(A))),
    ],
    "start_score": [
        Mistake("the start token's row counted", SECTION, "Average over rows 1 … n−1: row 0 can only look at itself.",
                lambda A: float(np.asarray(A)[:, 0].mean())),
        Mistake("row 0 instead of column 0", SECTION, "Attention to the start token is column 0: A[1:, 0].",
                lambda A: float(np.asarray(A)[0, 1:].mean())),
    ],
    "induction_score": [
        Mistake("the earlier copy instead of the token after it", SECTION,
                "An induction head looks at B in '… A B … A', the token after the first A: tokens[t − 1] == tokens[i].",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 0))),
        Mistake("the token itself counted as a target", SECTION, "Targets are t < i: leave out t = i.",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 1, with_self=True))),
        Mistake("averaged over every row", SECTION, "Average only over the rows that have a target.",
                lambda A, tokens: _induction_with(A, tokens, _shifted_targets(tokens, 1), every_row=True)),
    ],
    "classify_head": [],
    "copy_score": [
        Mistake("the earlier copy instead of the token after it", SECTION,
                "In '… A B … A' the model at the second A should predict B, the token after the first A.",
                lambda logits, tokens: _copy_with(logits, tokens, shift=0)),
        Mistake("averaged over every row", SECTION, "Average only over the rows whose token appeared before.",
                lambda logits, tokens: _copy_with(logits, tokens, every_row=True)),
    ],
}


def _copy_with(logits, tokens, shift: int = 1, every_row: bool = False) -> float:
    targets = _shifted_targets(tokens, shift)
    rows = np.flatnonzero(_shifted_targets(tokens, 1).any(axis=1))
    predicted, tokens = np.asarray(logits).argmax(axis=-1), np.asarray(tokens)
    hits = [predicted[i] in tokens[targets[i]] for i in rows]
    if every_row:
        return float(sum(hits) / (len(tokens) - 1))
    return float(np.mean(hits)) if hits else 0.0


def _logits(model, tokens) -> np.ndarray:
    """(n, V) float64: the model's score of every next word at every position."""
    return run(model, tokens).logits.astype(np.float64)


def _case(func: str, label: str, *args) -> dict:
    """A case: inputs, the answer key's answer, and every known mistake's answer."""
    case = {"func": func, "label": label, "args": list(args), "kwargs": {}}
    case["expected"] = getattr(heads, func)(*args)
    variants = []
    for mistake in MODEL_MISTAKES[func]:
        with np.errstate(all="ignore"):
            output = mistake.variant(*args)
        if output != case["expected"]:
            variants.append((mistake.name, mistake.section, mistake.explanation, output))
    case["variants"] = variants
    return case


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


def _visible() -> list[dict]:
    model = trained()
    chapter = grammar.encode("<s> the cat sat on the mat .".split())
    repeated = grammar.encode("<s> the cat sat on the mat . the cat sat on the mat".split())
    grids = _grids(model, chapter)
    repeated_grids = _grids(model, repeated)
    induction_head, induction_grid = max(repeated_grids, key=lambda g: heads.induction_score(g[1], repeated))
    cases = []
    for func in ("self_score", "previous_score", "start_score"):
        head, A = max(grids, key=lambda g: getattr(heads, func)(g[1]))  # the clearest example of the kind
        cases += [_case(func, "the grid given by hand", HAND),
                  _case(func, f"{head} of the trained model on 'the cat sat on the mat .'", A)]
    cases += [
        _case("induction_score", "the grid given by hand on '<s> x y x y'", HAND_REPEAT, HAND_REPEAT_TOKENS),
        _case("induction_score", f"{induction_head} of the trained model on the prompt written twice",
              induction_grid, repeated),
        _case("induction_score", "a prompt where no token repeats", HAND_REPEAT[:4, :4], np.array([0, 5, 6, 7])),
    ]
    cases += [_case("classify_head", f"{name} of the trained model on the prompt written twice", A, repeated)
              for name, A in repeated_grids if _clear(A, repeated)]
    cases.append(_case("classify_head", "layer 0 head 0 of the random weights", _grids(untrained(model.seed), repeated)[0][1],
                       repeated))
    cases += [
        _case("copy_score", "the trained model on the prompt written twice", _logits(model, repeated), repeated),
        _case("copy_score", "the random weights on the prompt written twice", _logits(untrained(model.seed), repeated),
              repeated),
        _case("copy_score", "logits given by hand on '<s> x y x y' (the second x predicts y, the second y predicts x)",
              np.eye(8)[[5, 6, 5, 6, 5]], HAND_REPEAT_TOKENS),
    ]
    return cases


def _hidden() -> dict[str, list[dict]]:
    model = trained()
    random = untrained(model.seed)
    rng = np.random.default_rng(HIDDEN_SEED)
    sentences = [grammar.sentences(rng, int(rng.integers(8, grammar.CONTEXT + 1))) for _ in range(3)]
    repeats = [grammar.repeats(rng, 1 + 2 * span, span) for span in (6, 9, 15)]
    found: dict[str, list[dict]] = {func: [] for func in MODEL_FUNCTIONS}

    def add(func, label, *args):
        found[func].append(_case(func, label, *args))

    for func in ("self_score", "previous_score", "start_score"):
        for number, tokens in enumerate(sentences):
            for name, A in _grids(model, tokens)[number::3]:
                add(func, f"{name} of the trained model on a hidden sentence of {len(tokens)} tokens", A)
        add(func, f"layer 1 head 2 of the random weights on {len(sentences[0])} tokens", _grids(random, sentences[0])[6][1])
        add(func, "drawn weights on 7 tokens", _drawn_grid(rng, 7))
        add(func, "2 tokens", np.array([[1.0, 0.0], [0.3, 0.7]]))
    for tokens in repeats:
        for name, A in _grids(model, tokens)[4:]:
            add("induction_score", f"{name} of the trained model on a hidden span of {len(tokens) // 2} words, twice",
                A, tokens)
    add("induction_score", "the random weights on a hidden repeated span", _grids(random, repeats[0])[5][1], repeats[0])
    add("induction_score", "a hidden sentence", _grids(model, sentences[2])[5][1], sentences[2])
    small_alphabet = np.concatenate([[0], rng.integers(1, 4, size=11)])
    add("induction_score", "drawn weights on 12 tokens of 3 kinds (rows with several targets)",
        _drawn_grid(rng, 12), small_alphabet)
    add("induction_score", "no token repeats", _drawn_grid(rng, 5), np.arange(5))
    for tokens in (sentences[0], repeats[1]):
        for name, A in _grids(model, tokens):
            if _clear(A, tokens):
                add("classify_head", f"{name} of the trained model on hidden tokens ({len(tokens)})", A, tokens)
    add("classify_head", "random weights", _grids(random, repeats[2])[2][1], repeats[2])
    ties = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    add("classify_head", "self and previous tied at 0.5 (self comes first)", ties, np.array([0, 4, 9]))
    add("classify_head", "every token on itself", np.eye(6), np.arange(6))
    for tokens in repeats:
        add("copy_score", f"the trained model on a hidden span of {len(tokens) // 2} words, twice",
            _logits(model, tokens), tokens)
    add("copy_score", "the random weights on a hidden repeated span", _logits(random, repeats[1]), repeats[1])
    add("copy_score", "the trained model on a hidden sentence", _logits(model, sentences[1]), sentences[1])
    add("copy_score", "drawn logits on 12 tokens of 3 kinds (rows with several targets)",
        rng.standard_normal((12, 4)), small_alphabet)
    add("copy_score", "no token repeats", rng.standard_normal((5, 8)), np.arange(5))
    return found


@lru_cache(maxsize=None)
def model_cases() -> tuple[tuple[dict, ...], dict[str, tuple[dict, ...]]]:
    """(visible cases, {exercise: hidden cases}) of `MODEL_FUNCTIONS` (computed once per process)."""
    return tuple(_visible()), {func: tuple(cases) for func, cases in _hidden().items()}
