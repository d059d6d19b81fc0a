"""The exercise registry: every exercise of the assignment, declared once.

One module per notebook, named after it (``notebooks/attention/03_softmax_and_mix.py``
→ `softmax_and_mix`), sets ``NOTEBOOK`` and declares its exercises in the
order the notebook asks for them, each an `Exercise` (spec.py): its reference,
its visible and hidden cases (one function each, returning case specs), its
known mistakes, what it is built on and its points. `REGISTRY` collects them
in notebook order. Everything else is derived from it:

- the cases with their expected values and mistakes' outputs: autograder/cases.py;
- the known mistakes by exercise: autograder/mistakes.py;
- what each exercise is built on: ``autograder/judge/built_on.json`` and the
  notebooks' map for the figures (``figures/notebook_of.json`` in the release), both
  written by ``make release`` (kit/release.py);
- the check and hidden cells under each exercise's solution cell: kit/notebooks.py (`shows` above the check);
- the points of the graded cells: kit/notebooks.py `course_points`
  (course.toml's optional ``[points]`` table overrides them).

This package imports nothing of the kit (no autograder.*, no kit.* outside
it): only NumPy, hypothesis and the answer keys (solutions/, model/).
docs/adapting.md says how to add, change and remove an exercise or a notebook.
"""

from __future__ import annotations

import dataclasses

from autograder.exercises import (blockwise, check_yourself, cost, heads, masks_and_cross_attention, model_explorer,
                                  scores_and_scaling, softmax_and_mix, worked_example)
from autograder.exercises.spec import BEHAVIOURS, Exercise, Mistake, Requirement

# One module per notebook, in the notebooks' order.
NOTEBOOK_MODULES = (worked_example, scores_and_scaling, softmax_and_mix, heads, masks_and_cross_attention, blockwise,
                    cost, check_yourself, model_explorer)

__all__ = ["BEHAVIOURS", "Exercise", "Mistake", "Requirement", "REGISTRY", "built_on", "check_descriptions", "notebook_of",
           "points"]


def _collect(modules) -> dict[str, Exercise]:
    """name → Exercise (its notebook filled in), refusing what would make two exercises collide."""
    registry: dict[str, Exercise] = {}
    for module in modules:
        for exercise in module.EXERCISES:
            if exercise.name in registry:
                raise ValueError(f"exercise {exercise.name!r} is declared twice ({module.NOTEBOOK})")
            registry[exercise.name] = dataclasses.replace(exercise, notebook=module.NOTEBOOK)
    streams = [e.stream for e in registry.values() if e.stream is not None]
    shared = sorted({s for s in streams if streams.count(s) > 1})
    if shared:
        raise ValueError(f"hidden streams used by two exercises: {shared} (give each exercise a stream of its own)")
    for exercise in registry.values():
        unknown = set(exercise.built_on) - set(registry)
        if unknown or exercise.name in exercise.built_on:
            raise ValueError(f"{exercise.name} is built on {sorted(unknown) or 'itself'}: not an exercise it may call")
    return registry


REGISTRY: dict[str, Exercise] = _collect(NOTEBOOK_MODULES)


def built_on() -> dict[str, list[str]]:
    """Exercise → the exercises it is built on, for those built on any (judge.BUILT_ON)."""
    return {name: list(e.built_on) for name, e in REGISTRY.items() if e.built_on}


def notebook_of() -> dict[str, str]:
    """Exercise → the notebook that asks for it ("03_softmax_and_mix")."""
    return {name: e.notebook for name, e in REGISTRY.items()}


def check_descriptions() -> dict[str, str]:
    """Exercise → its `shows`, the words above its visible check (kit/notebooks.py)."""
    return {name: e.shows for name, e in REGISTRY.items()}


def points() -> dict[str, float]:
    """grade id → points of every graded cell, as the registry declares them."""
    found = {}
    for name, exercise in REGISTRY.items():
        if exercise.points.check is not None:
            found[f"check_{name}"] = exercise.points.check
        found[f"hidden_{name}"] = exercise.points.hidden
    return found
