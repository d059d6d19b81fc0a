"""Train the explorer's model: ``python -m model.train [--out PATH]``.

From a fixed seed, on one CPU thread (so the same bits on a loaded machine), in a few minutes: starts from
`random_weights(seed)`, trains on batches of `model.grammar` (half sentences,
half repeated spans) with Adam, numbers the heads of every layer by kind
(self, previous, start, induction, spread: so the layer-0 self head is head 0,
as in the chapter), checks that the NumPy forward pass gives the logits torch gave, and
writes the weights, the vocabulary and the loss of every step to an .npz file.

Needs torch (CPU build) for training only: ``pip install -e '.[train]'``.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np

# The matrices are small: two threads that spin while they wait for each other
# run ten times slower than one when anything else wants the CPU (measured on
# 2 cores while tests ran); waiting passively keeps two threads as fast as one.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402  (after the thread policy, which torch reads when it loads)
import torch.nn.functional as F  # noqa: E402

from model import grammar
from model.heads import KINDS, SPREAD, kinds, profile
from model.reference import WEIGHTS, run, untrained
from model.transformer import HEADS, LAYERS, WIDTH, Model

SEED = 0
STEPS = 2000
BATCH = 32
LEARNING_RATE = 3e-3
WARMUP = 100
# The share of training sequences on which layer 0's skip path is dropped: on
# those, what later layers learn of a token itself must come through a layer-0
# head, so training grows a head that reads its own token (the chapter's layer 0
# head 0). The finished model always keeps the skip path.
SKIP_DROP = 0.5


def torch_forward(params: dict[str, torch.Tensor], tokens: torch.Tensor,
                  keep_skip: torch.Tensor | None = None) -> torch.Tensor:
    """(batch, n, V) logits: `model.transformer.forward` in torch, on the reference attention.

    keep_skip: (batch, 1, 1) of 0 and 1, in training only: where 0, layer 0's
    attention replaces the residual stream instead of adding to it.
    """
    batch, n = tokens.shape
    d_k = WIDTH // HEADS
    x = params["embed"][tokens] + params["position"][:n]
    mask = torch.full((n, n), -math.inf).triu(1)
    heads = lambda M: M.view(batch, n, HEADS, d_k).transpose(1, 2)  # noqa: E731
    for layer in range(LAYERS):
        p = lambda name: params[f"layer{layer}.{name}"]  # noqa: E731
        h = F.layer_norm(x, (WIDTH,), p("norm1.gain"), p("norm1.bias"), eps=1e-5)
        Q, K, V = heads(h @ p("W_q")), heads(h @ p("W_k")), heads(h @ p("W_v"))
        A = torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(d_k) + mask, dim=-1)
        skip = x if keep_skip is None or layer else x * keep_skip
        x = skip + (A @ V).transpose(1, 2).reshape(batch, n, WIDTH) @ p("W_o")
        h = F.layer_norm(x, (WIDTH,), p("norm2.gain"), p("norm2.bias"), eps=1e-5)
        x = x + F.gelu(h @ p("W_in") + p("b_in"), approximate="tanh") @ p("W_out") + p("b_out")
    return F.layer_norm(x, (WIDTH,), params["final_norm.gain"], params["final_norm.bias"], eps=1e-5) \
        @ params["unembed"]


def learning_rate(step: int, steps: int) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < WARMUP:
        return LEARNING_RATE * (step + 1) / WARMUP
    progress = (step - WARMUP) / max(1, steps - WARMUP)
    return LEARNING_RATE * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def train(seed: int = SEED, steps: int = STEPS, log_every: int = 200) -> Model:
    """The trained model, heads not yet ordered."""
    torch.set_num_threads(1)  # one thread: the same bits whatever else the machine runs (two threads were not)
    start = untrained(seed)
    params = {k: torch.tensor(v, requires_grad=True) for k, v in start.params.items()}
    optimiser = torch.optim.Adam(params.values(), lr=LEARNING_RATE, betas=(0.9, 0.98))
    rng = np.random.default_rng([seed, 1])
    losses = np.zeros(steps, np.float32)
    began = time.perf_counter()
    for step in range(steps):
        tokens = torch.from_numpy(grammar.batch(rng, BATCH))
        keep_skip = torch.from_numpy((rng.random((BATCH, 1, 1)) >= SKIP_DROP).astype(np.float32))
        logits = torch_forward(params, tokens[:, :-1], keep_skip)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step, steps)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses[step] = loss.item()
        if log_every and (step + 1) % log_every == 0:
            print(f"step {step + 1:5d}  loss {losses[max(0, step - 49):step + 1].mean():.3f}  "
                  f"{time.perf_counter() - began:5.0f} s", flush=True)
    trained = {k: v.detach().numpy().copy() for k, v in params.items()}
    _same_logits_in_numpy(trained, Model(trained, start.vocab, losses, seed), rng)
    return Model(trained, start.vocab, losses, seed)


def _same_logits_in_numpy(params: dict[str, np.ndarray], model: Model, rng) -> None:
    """Refuse to save weights on which the NumPy forward pass disagrees with torch's."""
    tokens = grammar.batch(rng, 4)[:, :-1]
    with torch.no_grad():
        expected = torch_forward({k: torch.from_numpy(v) for k, v in params.items()}, torch.from_numpy(tokens))
    for row, want in zip(tokens, expected.numpy()):
        got = run(model, row).logits
        if not np.allclose(got, want, atol=1e-3, rtol=1e-3):
            raise AssertionError(f"the NumPy forward pass is off by {np.abs(got - want).max():.2g}")


def ordered_heads(model: Model) -> Model:
    """The same model with every layer's heads numbered by kind: self, previous,
    start, induction, then spread. Numbering heads changes no output: head m is
    columns m·d_k … (m+1)·d_k − 1 of W_q, W_k, W_v and the same rows of W_o."""
    rank = [*KINDS, SPREAD]
    table = profile(model)
    params = dict(model.params)
    d_k = WIDTH // HEADS
    for layer, layer_kinds in enumerate(kinds(model)):
        # Within a kind, the head that shows it most strongly comes first.
        strength = [table[layer, m, KINDS.index(k)] if k in KINDS else 0.0 for m, k in enumerate(layer_kinds)]
        order = sorted(range(HEADS), key=lambda m: (rank.index(layer_kinds[m]), -strength[m]))
        columns = np.concatenate([np.arange(m * d_k, (m + 1) * d_k) for m in order])
        for name in ("W_q", "W_k", "W_v"):
            params[f"layer{layer}.{name}"] = params[f"layer{layer}.{name}"][:, columns]
        params[f"layer{layer}.W_o"] = params[f"layer{layer}.W_o"][columns, :]
    return model._replace(params=params)


def save(model: Model, path: Path) -> None:
    """Write the weights (float32), the vocabulary, the loss per step and the seed to `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **model.params, vocab=np.array(model.vocab), loss=model.loss,
                        seed=np.array(model.seed))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m model.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=WEIGHTS, help=f"where to write the weights (default {WEIGHTS})")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the starting weights and the data")
    parser.add_argument("--steps", type=int, default=STEPS, help="optimiser steps")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    model = ordered_heads(train(args.seed, args.steps))
    save(model, args.out)
    print(f"trained in {time.perf_counter() - began:.0f} s; final loss {model.loss[-50:].mean():.3f}; "
          f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    print("held-out means   self  previous  start  induction   kind")
    for layer, (scores, layer_kinds) in enumerate(zip(profile(model), kinds(model))):
        for head, (row, kind) in enumerate(zip(scores, layer_kinds)):
            print(f"layer {layer} head {head}  " + "".join(f"{v:7.2f}" for v in row) + f"   {kind}")


if __name__ == "__main__":
    main()
