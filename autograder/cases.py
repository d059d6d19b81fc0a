"""The cases every exercise is checked on, with the reference's answers and the mistakes' outputs.

The one case builder: it turns the case specs of the exercise registry
(autograder/exercises/: inputs, and what to check about them) into the cases
the judge reads, for function, model and question exercises alike:

    {"func", "label", "args", "kwargs", ["checks"], ["parts", ["computed_from"]], ["seconds"],
     ["memory_limit_bytes", "grid_bytes"], "raises" | "expected" + "variants"}

(a question answered by a value has "args" None and the answer's "form").
`visible_cases` are the chapter's worked example: they ship with the student
release (``worked_example.npz``) and drive the check cell under each exercise.
`shipped_visible_cases` reads them back from a release, as the grader does.
`hidden_cases` use inputs the notebooks never show. Expected values always come
from the exercise's reference, never from a typed-in number; a variant is a
known mistake's own output on the case.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from autograder import case_store
from autograder.exercises import BEHAVIOURS, REGISTRY, Exercise  # noqa: F401  (BEHAVIOURS: for the tests)
from autograder.exercises.spec import IN_INTEGERS, CaseSpec, Seed as DrawnSeed, in_integers
from autograder.judge import Seed, fresh_inputs, load_cases

EXERCISES = tuple(REGISTRY)


def _judged(value):
    """A spec's input as the judge encodes it: a registry Seed becomes the judge's (a fresh generator per call)."""
    return Seed(int(value)) if isinstance(value, DrawnSeed) else value


def build(exercise: Exercise, spec: CaseSpec) -> dict:
    """The case of `spec`: its inputs, plus the reference's answer and every known mistake's answer."""
    if not callable(exercise.reference):  # a question answered by a value: the answer is the case
        return {"func": exercise.name, "label": spec.label, "args": None, "kwargs": {}, "expected": exercise.reference,
                "form": "letter" if isinstance(exercise.reference, str) else "count", "variants": []}
    case = {"func": exercise.name, "label": spec.label, "args": [_judged(a) for a in spec.args],
            "kwargs": {k: _judged(v) for k, v in spec.kwargs.items()}}
    if spec.checks:
        case["checks"] = list(spec.checks)
    if exercise.parts:  # a tuple answer: its parts' names, and the part the others are computed from
        case["parts"] = list(exercise.parts)
        if exercise.computed_from:
            case["computed_from"] = exercise.computed_from
    if spec.seconds:
        case["seconds"] = spec.seconds
    if spec.memory_limit_bytes:
        case.update(memory_limit_bytes=spec.memory_limit_bytes, grid_bytes=spec.grid_bytes)
    if spec.raises:
        case["raises"] = spec.raises
        return case
    args, kwargs = fresh_inputs(case)
    case["expected"] = exercise.reference(*args, **kwargs)
    variants = []
    for mistake in exercise.mistakes:
        if mistake.variant is None:  # a mistake that shows in memory, not in values
            continue
        for writing in (mistake.variant, *mistake.also):
            a, k = fresh_inputs(case)
            try:
                with np.errstate(all="ignore"):
                    output = writing(*a, **k)
            except Exception:
                continue
            variants.append((mistake.name, mistake.section, mistake.explanation, output))
    case["variants"] = variants
    return case


def visible_cases() -> list[dict]:
    """Every exercise's visible cases, in notebook order (each built once per process)."""
    return [case for name in REGISTRY for case in visible_cases_of(name)]


@lru_cache(maxsize=None)
def visible_cases_of(func: str) -> tuple[dict, ...]:
    """The visible cases of one exercise (computed once per process)."""
    return tuple(build(REGISTRY[func], spec) for spec in REGISTRY[func].visible())


def shipped_visible_cases(source: Path) -> tuple[dict, ...]:
    """The visible cases a release ships (its worked_example.npz), read once per process while the file stays
    as it was (every student graded against one source reads the same file)."""
    path = Path(source, "worked_example.npz").resolve()
    stat = path.stat()
    return _cases_in(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _cases_in(path: Path, mtime_ns: int, size: int) -> tuple[dict, ...]:
    return tuple(load_cases(path))


@lru_cache(maxsize=None)
def hidden_cases(func: str) -> tuple[dict, ...]:
    """The hidden cases of one exercise (computed once per process, or read from the store: case_store.py)."""
    if func not in REGISTRY:
        raise KeyError(f"no exercise called {func!r}")
    kept = _kept()
    if kept is not None and func in kept:
        return kept[func]
    exercise = REGISTRY[func]
    return tuple(build(exercise, spec) for spec in hidden_specs(exercise))


@lru_cache(maxsize=1)
def _kept() -> dict[str, tuple[dict, ...]] | None:
    """The store's cases for this version of the kit, read once per process; None when it holds none usable."""
    kept = case_store.load()
    return kept if kept is not None and set(kept) == set(REGISTRY) else None


def hidden_specs(exercise: Exercise) -> list:
    """The exercise's hidden case specs; where it meets "integers", for each of int64 and uint8 that no case
    of its own tries through spec.in_integers, its first case that raises nothing and has a float array to
    round, once more in those integers (notebook 01's general rule). The kit's right answers (the reference,
    the corpus's, the example class's) and its known mistakes' writings compute integers in float64, so the
    8-bit integers, which wrap round (3 − 5 is 254), fail only an answer that computes them in their own dtype
    (a held-out answer that does so beside its mistake makes a second slip: judge/policy.py)."""
    specs = list(exercise.hidden(exercise.hidden_rng()))
    if "integers" in exercise.meets:
        for dtype in (np.int64, np.uint8):
            suffix = IN_INTEGERS[np.dtype(dtype).kind]
            if not any(spec.label.endswith(suffix) for spec in specs):
                rounded = (in_integers(spec, dtype) for spec in specs if not spec.raises)
                specs.append(next(spec for spec in rounded if spec.label.endswith(suffix) and any(
                    isinstance(a, np.ndarray) and a.dtype == dtype for a in (*spec.args, *spec.kwargs.values()))))
    return specs


def build_every_hidden_case() -> None:
    """Build (and cache in this process) every exercise's hidden cases, once: before forking grading
    processes that share them, or before threads that grade (which would otherwise each build them,
    at the same time)."""
    for name in EXERCISES:
        hidden_cases(name)
    keep_hidden_cases()


def keep_hidden_cases() -> None:
    """Where this process found none in the store, keep every exercise's hidden cases there for the next
    processes (building those it has not built)."""
    if _kept() is None:
        case_store.keep({name: hidden_cases(name) for name in EXERCISES})
