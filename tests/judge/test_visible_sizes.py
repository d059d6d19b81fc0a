"""Does each visible check separate the commonest slips, as issue 37 asks (item 3)?

- Some visible case has every size different. A size is what an exercise's inputs measure: the last two
  dimensions of each array (its one dimension, for a vector) and each count given (heads, a block size, a
  position); 1 is left out, a degenerate size. An exercise's sizes are as many as its most varied case, hidden
  or visible, has different sizes: a visible check whose cases all tie two of them (the worked example's 4
  tokens of width 4, d_k = d_v) passes an answer that divides by the wrong one.
- Where a later exercise calls the function (autograder/exercises: built_on) and its inputs may be batched,
  some visible case is a float32 batch: an input with more dimensions than it has in the smallest case.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.cases import EXERCISES, REGISTRY, hidden_cases, visible_cases
from autograder.exercises import built_on
from autograder.judge import fresh_inputs


def _inputs(case: dict) -> list:
    args, kwargs = fresh_inputs(case)
    return [*args, *kwargs.values()]


def sizes(case: dict) -> set[int]:
    """The sizes a case's inputs measure (see the module's docstring), 1 and less left out."""
    found = set()
    for x in _inputs(case):
        if isinstance(x, np.ndarray):
            found |= set(x.shape[-2:])
        elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            found.add(int(x))
    return {s for s in found if s > 1}


def _computed(cases) -> list[dict]:
    return [c for c in cases if not c.get("raises") and c.get("args") is not None]


def _visible(exercise: str) -> list[dict]:
    return _computed(c for c in visible_cases() if c["func"] == exercise)


CHECKED = [name for name in EXERCISES if _visible(name)]


@pytest.mark.parametrize("exercise", CHECKED)
def test_some_visible_case_has_every_size_different(exercise):
    most = max(len(sizes(c)) for c in _computed([*_visible(exercise), *hidden_cases(exercise)]))
    best = max(_visible(exercise), key=lambda c: len(sizes(c)))
    assert len(sizes(best)) == most, \
        f"{exercise}: its visible cases tie two of its {most} sizes at best ({best['label']}: {sorted(sizes(best))})"


CALLED_LATER = sorted({dep for deps in built_on().values() for dep in deps
                       if {"batched", "float32"} <= REGISTRY[dep].meets})


def _dimensions(case: dict) -> list[int]:
    return [x.ndim if isinstance(x, np.ndarray) else -1 for x in _inputs(case)]


@pytest.mark.parametrize("exercise", CALLED_LATER)
def test_a_function_a_later_exercise_calls_has_a_visible_float32_batch(exercise):
    cases = _computed([*_visible(exercise), *hidden_cases(exercise)])
    dimensions = [_dimensions(c) for c in cases]
    fewest = [min(d[i] for d in dimensions if len(d) > i) for i in range(max(map(len, dimensions)))]
    batches = [c["label"] for c in _visible(exercise)
               if any(isinstance(x, np.ndarray) and x.dtype == np.float32 and x.ndim > fewest[i]
                      for i, x in enumerate(_inputs(c)))]
    assert batches, f"{exercise}: no visible case is a float32 batch"


def test_the_tests_read_sizes_and_batches_as_meant():
    """The worked example's attention ties n_q, n_k, d_k and d_v; its case of every size different does not."""
    ties, apart = (next(c for c in visible_cases() if c["func"] == "attention" and c["label"].startswith(start))
                   for start in ("the worked example", "every size different"))
    assert sizes(ties) == {4} and len(sizes(apart)) == 4
    assert {"softmax", "attention", "split_heads", "merge_heads"} <= set(CALLED_LATER)
