"""The reviewed mutants that may keep their hidden points (equivalent.txt), and the survivors still open (open.txt).

A line is ``<exercises> | <mutant's key> | <why>``: the exercise, several
separated by commas (a shared helper's mutant, for one reason under each), or
``*`` for every exercise that calls the function; the
mutant as `Mutant.key` words it ("function: before → after"); and why no
case should fail it: it computes the same answer (equivalent), or it changes
only what the text leaves open. Blank lines and lines starting with # are
comments. A reason that ends with MAY_BE_KILLED is of a mutant equivalent in
its values whose slowness the time limit may catch or not, as the machine's
speed has it: its line may go unused.

open.txt lists, as ``<exercise> | <mutant's key>``, the survivors no case kills
yet: gaps of the graders known and not closed. It may only shrink: a new
survivor, or a line whose mutant is killed now, fails tests/judge/test_mutants.py.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

EQUIVALENT = Path(__file__).with_name("equivalent.txt")
OPEN = Path(__file__).with_name("open.txt")
EVERY = "*"
MAY_BE_KILLED = "may be killed"  # the end of a reason: the time limit catches this mutant on some machines


class Reviewed(NamedTuple):
    exercises: tuple[str, ...]  # or (EVERY,)
    key: str
    why: str
    line: int      # in equivalent.txt


@cache
def reviewed(path: Path = EQUIVALENT) -> tuple[Reviewed, ...]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        exercises, rest = line.split(" | ", 1)
        key, why = rest.rsplit(" | ", 1)
        if not why.strip():
            raise ValueError(f"{path.name} line {number}: no reason given")
        found.append(Reviewed(tuple(e.strip() for e in exercises.split(",")), key.strip(), why.strip(), number))
    return tuple(found)


def why_equivalent(exercise: str, key: str) -> str | None:
    """The reviewed reason `exercise`'s mutant `key` may keep its hidden points, or None."""
    return next((r.why for r in reviewed() if r.key == key and {exercise, EVERY} & set(r.exercises)), None)


def lines_for(exercise: str, functions: set[str]) -> list[str]:
    """The reviewed lines that apply to `exercise`, whose mutants change `functions` (for its fingerprint)."""
    return [f"{', '.join(r.exercises)} | {r.key} | {r.why}" for r in reviewed()
            if exercise in r.exercises or EVERY in r.exercises and r.key.split(":", 1)[0] in functions]


def still_open(path: Path = OPEN) -> set[tuple[str, str]]:
    """(exercise, mutant's key) of every survivor open.txt lists."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return {tuple(part.strip() for part in line.split(" | ", 1)) for line in lines
            if line.strip() and not line.startswith("#")}
