"""The reviewed mutants that may keep their hidden points: equivalent.txt, one line each, with the reason.

A line is ``<exercise> | <mutant's key> | <why>``: the exercise, or ``*`` for
every exercise that calls the function (a shared helper's mutant); the
mutant as `Mutant.key` words it ("function: before → after"); and why no
case should fail it: it computes the same answer (equivalent), or it changes
only what the text leaves open. Blank lines and lines starting with # are
comments.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

EQUIVALENT = Path(__file__).with_name("equivalent.txt")
EVERY = "*"


class Reviewed(NamedTuple):
    exercise: str  # or EVERY
    key: str
    why: str
    line: int      # in equivalent.txt


@cache
def reviewed(path: Path = EQUIVALENT) -> tuple[Reviewed, ...]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        exercise, rest = line.split(" | ", 1)
        key, why = rest.rsplit(" | ", 1)
        if not why.strip():
            raise ValueError(f"{path.name} line {number}: no reason given")
        found.append(Reviewed(exercise.strip(), key.strip(), why.strip(), number))
    return tuple(found)


def why_equivalent(exercise: str, key: str) -> str | None:
    """The reviewed reason `exercise`'s mutant `key` may keep its hidden points, or None."""
    return next((r.why for r in reviewed() if r.key == key and r.exercise in (exercise, EVERY)), None)


def lines_for(exercise: str, functions: set[str]) -> list[str]:
    """The reviewed lines that apply to `exercise`, whose mutants change `functions` (for its fingerprint)."""
    return [f"{r.exercise} | {r.key} | {r.why}" for r in reviewed()
            if r.exercise == exercise or r.exercise == EVERY and r.key.split(":", 1)[0] in functions]
