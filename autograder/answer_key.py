"""Where the answer key of every exercise function lives: one lookup for every grading path.

The reference functions are spread over the modules that own them (the
attention exercises in `solutions.attention`, notebook 09's measures of a head
in `model.heads`, notebook 08's functions in `solutions.check_yourself`); the
registry's entry of each exercise names its own. A stand-in (judge.BUILT_ON)
asks `reference_of(name)` for the function that answers in place of the
student's while another exercise is graded. Instructor-only: it imports the
answer key, so it is never released.
"""

from __future__ import annotations

from typing import Callable


def reference_of(name: str) -> Callable:
    """The reference function of exercise `name`; LookupError when the answer key has none."""
    from autograder.exercises import REGISTRY  # the answer keys, imported when a stand-in is first asked for

    exercise = REGISTRY.get(name)
    if exercise is None or not callable(exercise.reference):
        raise LookupError(f"the answer key has no function {name!r}")
    return exercise.reference
