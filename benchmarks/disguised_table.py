"""What the benchmarks on tests/report/disguised_class.py's classes share: their seed ranges and their table rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def seed_range(text: str) -> range:
    """A command line's "low:high" as range(low, high)."""
    low, high = map(int, text.split(":"))
    return range(low, high)


def found_row(first: Sequence[str], found: Mapping[str, int], kinds: Sequence[str], classes: int,
              honest: Sequence[int]) -> str:
    """A table row: the `first` cells, then the copies `found` of each of `kinds` in `classes` classes, in all, and
    the honest pairs listed (the most in one class)."""
    return ("| " + " | ".join([*first, *(f"{found[kind]} of {classes}" for kind in kinds)]) +
            f" | {sum(found.values())} of {classes * len(kinds)} | {sum(honest)} ({max(honest)}) |")
