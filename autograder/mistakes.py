"""Known mistakes by exercise, as the registry declares them (autograder/exercises/).

Each is written as the function a student who makes it would write: a wrong
answer that matches one's output on a case is told the mistake by name. They
are built from the reference, so they stay instructor-only (never released).
"""

from __future__ import annotations

from autograder.exercises import REGISTRY
from autograder.exercises.spec import Mistake

__all__ = ["MISTAKES", "Mistake"]

MISTAKES: dict[str, list[Mistake]] = {name: list(e.mistakes) for name, e in REGISTRY.items()}
