"""A small trained transformer whose attention runs on functions you pass in.

Two layers, four heads per layer, width 64, a context of 32 tokens: token
embeddings plus learned positions, then per layer a pre-norm block of
multi-head attention and a pre-norm MLP, each added to the running vector
("the residual stream"), then a last norm and the unembedding into one score
per word of the vocabulary. The attention has no biases, so it is exactly the
`multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads, mask)` of the exercises.

This file needs only NumPy. It is the model of notebook 09 (shipped beside it
as ``explorer_model.py``) and of the kit's explorer page. It holds no attention
code of its own: `forward` takes the attention pieces as arguments.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Mapping, NamedTuple

import numpy as np

LAYERS = 2
HEADS = 4
WIDTH = 64
HIDDEN = 4 * WIDTH  # the MLP's inner width
CONTEXT = 32  # the longest sequence, start token included
START = "<s>"  # token 0 of every vocabulary: every sequence begins with it
METADATA = ("vocab", "loss", "seed")  # the arrays of a weights file that are not weights


class Model(NamedTuple):
    params: dict[str, np.ndarray]  # name → float32 array, shapes as `shapes` says
    vocab: tuple[str, ...]  # token id → word; vocab[0] is START
    loss: np.ndarray  # (steps,) float32: the training loss at every step; empty when untrained
    seed: int  # the seed of the starting (random) weights


class Pieces(NamedTuple):
    """The attention functions the forward pass runs on, with the exercises' signatures."""
    scaled_scores: Callable  # (Q (..., n, d_k), K (..., n, d_k)) → (..., n, n)
    softmax: Callable  # (S, axis=-1) → weights of the same shape
    split_heads: Callable  # ((..., n, d), n_heads) → (..., n_heads, n, d // n_heads)
    causal_mask: Callable  # n → (n, n): 0 on and below the diagonal, −inf above
    multi_head_attention: Callable  # (X, W_q, W_k, W_v, W_o, n_heads, mask=None) → (..., n, d_out)


class Run(NamedTuple):
    """Everything one forward pass shows; n tokens, L layers, H heads, V words."""
    tokens: np.ndarray  # (n,) int64
    scores: np.ndarray  # (L, H, n, n) scaled scores, before the mask
    mask: np.ndarray  # (n, n) the additive causal mask
    weights: np.ndarray  # (L, H, n, n) softmax(scores + mask): row i is where token i looks
    logits: np.ndarray  # (n, V) the score of every next word, at every position


class WeightsMismatch(ValueError):
    """A weights file that does not fit this model; the message lists every problem."""


def shapes(vocab_size: int) -> dict[str, tuple[int, ...]]:
    """Name → shape of every weight, for a vocabulary of `vocab_size` words."""
    found = {"embed": (vocab_size, WIDTH), "position": (CONTEXT, WIDTH)}
    for layer in range(LAYERS):
        found.update({f"layer{layer}.{name}": shape for name, shape in (
            ("norm1.gain", (WIDTH,)), ("norm1.bias", (WIDTH,)),
            ("W_q", (WIDTH, WIDTH)), ("W_k", (WIDTH, WIDTH)), ("W_v", (WIDTH, WIDTH)), ("W_o", (WIDTH, WIDTH)),
            ("norm2.gain", (WIDTH,)), ("norm2.bias", (WIDTH,)),
            ("W_in", (WIDTH, HIDDEN)), ("b_in", (HIDDEN,)), ("W_out", (HIDDEN, WIDTH)), ("b_out", (WIDTH,)))})
    found.update({"final_norm.gain": (WIDTH,), "final_norm.bias": (WIDTH,), "unembed": (WIDTH, vocab_size)})
    return found


# ---------------------------------------------------------------- weights


def load(path, vocab: tuple[str, ...] | None = None) -> Model:
    """The model stored at `path` (an .npz file), after checking that it fits.

    vocab: the vocabulary the file must hold (None: any vocabulary that starts
    with the start token). Raises `WeightsMismatch` naming every missing,
    unexpected or misshapen array and any vocabulary difference.
    """
    with np.load(path, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    problems = []
    file_vocab = arrays.get("vocab")
    if file_vocab is None or file_vocab.ndim != 1 or file_vocab.dtype.kind != "U" or file_vocab.size < 2:
        problems.append("no vocabulary: expected an array 'vocab' of words, the start token first")
        file_vocab = np.array([START])
    file_vocab = tuple(str(w) for w in file_vocab)
    if file_vocab[0] != START:
        problems.append(f"the vocabulary starts with {file_vocab[0]!r}, not the start token {START!r}")
    if len(set(file_vocab)) != len(file_vocab):
        problems.append("the vocabulary lists a word twice")
    if vocab is not None and file_vocab != tuple(vocab):
        differ = [f"{i}: {a!r} instead of {b!r}" for i, (a, b) in enumerate(zip(file_vocab, vocab)) if a != b]
        problems.append(f"the vocabulary is not the model's: {len(file_vocab)} words instead of {len(vocab)}"
                        + (f"; token {differ[0]}" if differ else ""))
    expected = shapes(len(vocab if vocab is not None else file_vocab))
    for name, shape in expected.items():
        if name not in arrays:
            problems.append(f"{name} is missing")
        elif arrays[name].shape != shape:
            problems.append(f"{name} has shape {arrays[name].shape}, expected {shape}")
        elif arrays[name].dtype.kind != "f" or not np.isfinite(arrays[name]).all():
            problems.append(f"{name} must hold finite floating-point numbers, got dtype {arrays[name].dtype}")
    unexpected = sorted(set(arrays) - set(expected) - set(METADATA))
    if unexpected:
        problems.append(f"unexpected arrays {unexpected}")
    if problems:
        raise WeightsMismatch(f"{Path(path).name} does not fit this model "
                              f"({LAYERS} layers, {HEADS} heads, width {WIDTH}): " + "; ".join(problems))
    return Model({name: arrays[name].astype(np.float32) for name in expected}, file_vocab,
                 arrays.get("loss", np.zeros(0)).astype(np.float32), int(arrays.get("seed", -1)))


def random_weights(seed: int, vocab: tuple[str, ...]) -> Model:
    """Untrained weights of the same shapes: the model before training starts.

    Matrices and embeddings are drawn from N(0, 0.02²) (the two that write into
    the residual stream, W_o and W_out, smaller still, as in GPT-2), norm gains
    are 1 and biases 0.
    """
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in shapes(len(vocab)).items():
        if name.endswith(".gain"):
            params[name] = np.ones(shape, np.float32)
        elif name.endswith("bias") or name.split(".")[-1].startswith("b_"):
            params[name] = np.zeros(shape, np.float32)
        else:
            scale = 0.02 / math.sqrt(2 * LAYERS) if name.endswith(("W_o", "W_out")) else 0.02
            params[name] = (scale * rng.standard_normal(shape)).astype(np.float32)
    return Model(params, tuple(vocab), np.zeros(0, np.float32), seed)


def tokenize(text: str, vocab: tuple[str, ...]) -> np.ndarray:
    """(n,) int64: the start token, then the words of `text` (split at spaces).

    Raises ValueError naming any word outside the vocabulary, or a text too long for the context.
    """
    words = text.split()
    unknown = [w for w in words if w not in vocab or w == START]
    if unknown:
        raise ValueError(f"not in the model's vocabulary: {', '.join(map(repr, unknown))}; "
                         f"the words are: {' '.join(vocab[1:])}")
    if len(words) + 1 > CONTEXT:
        raise ValueError(f"{len(words)} words is too long: the model reads at most {CONTEXT - 1}")
    index = {w: i for i, w in enumerate(vocab)}
    return np.array([0] + [index[w] for w in words], dtype=np.int64)


# ---------------------------------------------------------------- the forward pass


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x: (..., d), each row scaled to mean 0 and variance 1, then `gain` · x + `bias`."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return gain * centred / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + 1e-5) + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """The MLP's activation (the tanh approximation of GELU)."""
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


class UnusableReturn(ValueError):
    """A piece returned what the forward pass cannot use; `piece` is its name (a field of `Pieces`)."""

    def __init__(self, piece: str, got, shape: tuple[int, ...]):
        self.piece = piece
        found = (f"an array of shape {got.shape} and dtype {got.dtype}" if isinstance(got, np.ndarray)
                 else type(got).__name__)
        super().__init__(f"{piece} returned {found}, where the model needs real numbers of shape {shape}")


def _used(piece: str, got, shape: tuple[int, ...]) -> np.ndarray:
    """What `piece` returned, if the model can use it: real numbers of `shape`; else UnusableReturn."""
    if not (isinstance(got, np.ndarray) and got.shape == shape and got.dtype.kind in "fiu"):
        raise UnusableReturn(piece, got, shape)
    return got


def forward(model: Model, tokens, pieces: Pieces, replaced: Mapping[int, Callable] | None = None) -> Run:
    """Run the model on `tokens` (n,) int with the attention `pieces`; n ≤ CONTEXT.

    Each layer's scores and weights are computed with `pieces` head by head for
    display, and the layer's output with `pieces.multi_head_attention`.
    replaced: layer → a function with multi_head_attention's signature that
    computes that layer's output instead (one with a head removed, say); the
    scores and weights shown are still those of `pieces`.
    """
    tokens = np.asarray(tokens, dtype=np.int64)
    n = len(tokens)
    if tokens.ndim != 1 or not 1 <= n <= CONTEXT or tokens.min() < 0 or tokens.max() >= len(model.vocab):
        raise ValueError(f"tokens must be 1 to {CONTEXT} ids of the vocabulary, got shape {tokens.shape}")
    p = model.params
    x = p["embed"][tokens] + p["position"][:n]
    d_k = x.shape[-1] // HEADS
    mask = _used("causal_mask", pieces.causal_mask(n), (n, n))
    scores, weights = [], []
    for layer in range(LAYERS):
        w = {name: p[f"layer{layer}.{name}"] for name in ("W_q", "W_k", "W_v", "W_o")}
        h = layer_norm(x, p[f"layer{layer}.norm1.gain"], p[f"layer{layer}.norm1.bias"])
        Q, K = (_used("split_heads", pieces.split_heads(h @ w[W], HEADS), (HEADS, n, d_k)) for W in ("W_q", "W_k"))
        S = _used("scaled_scores", pieces.scaled_scores(Q, K), (HEADS, n, n))
        scores.append(S)
        weights.append(_used("softmax", pieces.softmax(S + mask, axis=-1), (HEADS, n, n)))
        attend = (replaced or {}).get(layer, pieces.multi_head_attention)
        mixed = attend(h, w["W_q"], w["W_k"], w["W_v"], w["W_o"], HEADS, mask=mask)
        x = x + _used("multi_head_attention", mixed, x.shape)
        h = layer_norm(x, p[f"layer{layer}.norm2.gain"], p[f"layer{layer}.norm2.bias"])
        x = x + gelu(h @ p[f"layer{layer}.W_in"] + p[f"layer{layer}.b_in"]) @ p[f"layer{layer}.W_out"] \
            + p[f"layer{layer}.b_out"]
    logits = layer_norm(x, p["final_norm.gain"], p["final_norm.bias"]) @ p["unembed"]
    return Run(tokens, np.stack(scores), mask, np.stack(weights), logits)
