"""The kit's own runs of the model: the shipped weights on the reference attention.

For the kit's code only (tests, the explorer page, the graders' cases): it
imports the answer key, so nothing shipped to students imports this module.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model import grammar
from model.transformer import Model, Pieces, Run, forward, load, random_weights
from solutions import attention as ref

WEIGHTS = Path(__file__).with_name("weights.npz")
REFERENCE = Pieces(scaled_scores=ref.scaled_scores, softmax=ref.softmax, split_heads=ref.split_heads,
                   causal_mask=ref.causal_mask, multi_head_attention=ref.multi_head_attention)


def trained(path: Path = WEIGHTS) -> Model:
    """The weights at `path` (default: the shipped ones), checked against the grammar's vocabulary."""
    return load(path, grammar.VOCAB)


def untrained(seed: int = 0) -> Model:
    """Random weights of the same shapes: the model as training starts from `seed`."""
    return random_weights(seed, grammar.VOCAB)


def run(model: Model, tokens) -> Run:
    """The forward pass on the reference attention."""
    return forward(model, np.asarray(tokens), REFERENCE)
