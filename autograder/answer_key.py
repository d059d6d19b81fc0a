"""Where the answer key of every exercise function lives: one lookup for every grading path.

The reference functions are spread over the modules that own them: the
attention exercises in `solutions.attention`, notebook 09's measures of a head
in `model.heads`, notebook 08's functions in `solutions.check_yourself`. A
stand-in (judge.BUILT_ON) asks `reference_of(name)` for the function that
answers in place of the student's while another exercise is graded.
Instructor-only: it imports the answer key, so it is never released.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import Callable

# In the order they are searched; a name is an exercise of the first that defines it.
MODULES = ("solutions.attention", "model.heads", "solutions.check_yourself")


@cache
def _modules() -> tuple[ModuleType, ...]:
    return tuple(importlib.import_module(name) for name in MODULES)


def reference_of(name: str) -> Callable:
    """The reference function of exercise `name`; LookupError when the answer key has none."""
    for module in _modules():
        found = getattr(module, name, None)
        if callable(found) and not name.startswith("_"):
            return found
    raise LookupError(f"the answer key has no function {name!r}")
