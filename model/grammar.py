"""The toy language the explorer's model is trained on.

Two kinds of sequence, both starting with the start token ``<s>``:

- **sentences** of a small grammar: "the big dog chases a ball .",
  "the cat sat on the mat .", "pick up the red cube ." — subjects, verbs,
  objects and delimiters, joined with "," and "and" until the sequence is full;
- **repeats**: a span of random words written again and again
  ("<s> fox near hat red fox near hat red fox ..."), which can only be
  predicted by finding the earlier copy: the job of an induction head.

Everything is drawn from a ``numpy.random.Generator``, so a seed fixes it.
Sequences are token ids, (n,) int64, indices into `VOCAB`.
"""

from __future__ import annotations

import numpy as np

BOS = "<s>"
DETERMINERS = ("the", "a")
ADJECTIVES = ("big", "small", "red", "old")
NOUNS = ("cat", "dog", "bird", "fox", "child", "robot", "mat", "box", "ball", "tree", "cube", "hat")
TRANSITIVE = ("sees", "likes", "chases", "finds", "takes", "holds")
INTRANSITIVE = ("sat", "ran", "slept", "waited")
PREPOSITIONS = ("on", "under", "near", "by")
IMPERATIVES = (("pick", "up"), ("put", "down"))
DELIMITERS = (".", ",", "and")

# The start token first, so that it is token 0 in every file.
VOCAB: tuple[str, ...] = (BOS, *DELIMITERS, *DETERMINERS, *ADJECTIVES, *NOUNS, *TRANSITIVE,
                          *INTRANSITIVE, *PREPOSITIONS, *(w for pair in IMPERATIVES for w in pair))
ID = {word: i for i, word in enumerate(VOCAB)}
WORDS = np.arange(1, len(VOCAB))  # every token but the start token
CONTEXT = 32  # tokens per training sequence, the start token included


def _pick(rng: np.random.Generator, options):
    return options[rng.integers(len(options))]


def noun_phrase(rng: np.random.Generator) -> list[str]:
    """'the dog', 'a small box'."""
    adjective = [_pick(rng, ADJECTIVES)] if rng.random() < 0.4 else []
    return [_pick(rng, DETERMINERS), *adjective, _pick(rng, NOUNS)]


def clause(rng: np.random.Generator) -> list[str]:
    """One subject-verb-object (or subject-verb-place, or command) clause."""
    kind = rng.random()
    if kind < 0.5:
        return [*noun_phrase(rng), _pick(rng, TRANSITIVE), *noun_phrase(rng)]
    if kind < 0.8:
        return [*noun_phrase(rng), _pick(rng, INTRANSITIVE), _pick(rng, PREPOSITIONS), *noun_phrase(rng)]
    return [*_pick(rng, IMPERATIVES), *noun_phrase(rng)]


def sentence(rng: np.random.Generator) -> list[str]:
    """One or two clauses joined by ',' or 'and', closed by '.'."""
    words = clause(rng)
    if rng.random() < 0.3:
        words += [_pick(rng, (",", "and")), *clause(rng)]
    return words + ["."]


def sentences(rng: np.random.Generator, length: int = CONTEXT) -> np.ndarray:
    """(length,) int64: the start token, then sentences until `length` is reached (the last one cut)."""
    words = [BOS]
    while len(words) < length:
        words += sentence(rng)
    return encode(words[:length])


def repeats(rng: np.random.Generator, length: int = CONTEXT, span: int | None = None) -> np.ndarray:
    """(length,) int64: the start token, then one span of distinct random words repeated to `length`.

    span: the span's length (default: drawn from 4 … 12).
    """
    span = int(rng.integers(4, 13)) if span is None else span
    words = rng.choice(WORDS, size=span, replace=False)
    return np.concatenate([[ID[BOS]], np.resize(words, length - 1)]).astype(np.int64)


def batch(rng: np.random.Generator, size: int, repeat_share: float = 0.5) -> np.ndarray:
    """(size, CONTEXT + 1) int64: a training batch, about `repeat_share` of it repeats.

    One token longer than the context: the model reads [:, :-1] and predicts [:, 1:].
    """
    length = CONTEXT + 1
    return np.stack([repeats(rng, length) if rng.random() < repeat_share else sentences(rng, length)
                     for _ in range(size)])


def encode(words) -> np.ndarray:
    """(n,) int64 token ids of a list of words from `VOCAB`."""
    return np.array([ID[w] for w in words], dtype=np.int64)


def decode(tokens) -> list[str]:
    return [VOCAB[int(t)] for t in tokens]
