"""The kit's own explorer source: the shipped model on the reference attention.

Kit-only: it imports the answer key (model.reference, model.heads), so it is
never released; the student release serves the student's own attention instead
(notebooks/attention/explorer.py).
"""

from __future__ import annotations

from functools import cache

from explorer.server import Source
from model.heads import classify_head
from model.reference import run, trained, untrained
from model.transformer import tokenize


@cache
def reference_source() -> Source:
    """The trained weights and the random ones training started from, run and classified by the reference."""
    model = trained()
    return Source({"trained": model, "random": untrained(model.seed)}, run=run, tokenize=tokenize,
                  classify=classify_head)
