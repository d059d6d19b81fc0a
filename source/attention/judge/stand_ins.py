"""One exercise at a time: while an answer is graded, what it is built on is the reference's.

BUILT_ON: exercise → the exercises an answer to it may call, read from
``built_on.json`` beside this file (generated; tests/judge/test_built_on.py derives
the same map from the answer key and the notebooks). While an exercise is
graded, each of these is the reference's, not the student's own: a mistake
costs the points of its own exercise only. Blockwise attention has none: its
memory is measured, and work done by a stand-in would not count.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection
from pathlib import Path

BUILT_ON: dict[str, tuple[str, ...]] = {
    exercise: tuple(deps)
    for exercise, deps in json.loads(Path(__file__).with_name("built_on.json").read_text(encoding="utf-8")).items()}


@contextlib.contextmanager
def standing_in(name: str, answer, reference_of, keep: Collection[str] = ()):
    """While `answer` (the student's `name`) runs, the exercises it is built on
    are `reference_of(exercise)` in its module namespace, defined or not (a
    deleted cell costs its own points only), but those in `keep` (helpers of
    the student's own that share an exercise's name); put back as they were
    afterwards. With `reference_of` None, the student's own functions run."""
    namespace = getattr(answer, "__globals__", None)
    if reference_of is None or not isinstance(namespace, dict):
        yield
        return
    missing = object()
    own = {dep: namespace.get(dep, missing) for dep in BUILT_ON.get(name, ()) if dep not in keep}
    try:
        namespace.update({dep: reference_of(dep) for dep in own})
        yield
    finally:
        for dep, value in own.items():
            if value is missing:
                namespace.pop(dep, None)
            else:
                namespace[dep] = value
