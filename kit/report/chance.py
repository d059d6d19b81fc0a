"""How unusual two answers alike are, by the class's own frequencies (similarity.py's statistics).

    surprise(first, second, holding, others, settings) → nats: −log of the chance that another student
        writes all the statements the two share
    across(chances, exercises) → the chance for one pair of being as alike in as many exercises

Statements are keyed by a hash; `holding` maps a statement, and a (statement before, statement) link, to the
students who wrote it, one bit each; `others` are the students a pair is compared with, one bit each.
"""

from __future__ import annotations

import math
from typing import Protocol

Statements = dict[int, int]  # a statement → the statement before it (0: none), in canonical order


class Shrinking(Protocol):
    smoothing: float  # students added to a statement's writers when its share is counted
    shrink: float     # students' worth a share among a few others is shrunk towards the share alone


def surprise(first: Statements, second: Statements, holding: dict, others: int, settings: Shrinking) -> float:
    """−log (nats) of the chance that another student of this class (`others`) writes all the statements
    `first` and `second` share, by a chain rule over them in `first`'s order, each paid for once:
    - a statement that follows the same statement in both answers is taken with it, its chance the share of
      the others writing the statement before who follow it so (a Markov step: it also tells what the two
      left out between); otherwise its chance is the share of the others who wrote it;
    - while some others hold all the shared statements so far, the chance is the share of them who hold
      this one too, shrunk towards the chance above by `settings.shrink` students (one lucky match is not a
      rule), so the lines of one style cost once; when none does, the chain restarts there;
    - shares are smoothed by `settings.smoothing` students, so a statement no one else wrote costs
      log((others + 1) / smoothing)."""
    n_others = others.bit_count()
    total, run, paid = 0.0, others, set()
    for h, before in first.items():
        if h not in second:
            continue
        unit = (before, h) if second[h] == before else h
        held = holding.get(unit, 0) & others
        writers_before = (holding.get(before, 0) & others).bit_count() if unit != h and before in paid else n_others
        alone = (held.bit_count() + settings.smoothing) / (writers_before + 1)
        kept = run & held
        if kept and run != others:
            share, run = (kept.bit_count() + settings.shrink * alone) / (run.bit_count() + settings.shrink), kept
        else:
            share, run = alone, held or others
        total -= math.log(share)
        paid.add(h)
    return total


def ways(first: Statements, second: Statements, shared: int) -> float:
    """log of the ways of choosing `shared` statements of an answer (the smaller of the two counts): the two
    could have shared any such set."""
    return math.log(min(math.comb(len(first), shared), math.comb(len(second), shared)))


def across(chances: list[float], exercises: int) -> float:
    """The chance that a pair of honest students is alike in len(chances) of `exercises` exercises, each
    with at most these chances: the product of the chances times the ways of choosing which exercises (a
    union bound, as `ways` does for statements)."""
    product = math.prod(chances)
    return min(1.0, product * math.comb(max(exercises, len(chances)), len(chances)))
