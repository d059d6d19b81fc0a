"""What an exercise is declared with: `Exercise`, its `Mistake`s, its case specs and points.

A case spec (`case(...)`) holds the inputs of one check and what to check about
them (an error to raise, the behaviours it covers, memory and time limits),
never an expected value: autograder/cases.py computes that from the exercise's
reference when it builds the cases. Nothing here imports the kit.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

HIDDEN_SEED = 80_417  # appears nowhere in the notebooks

# What the foundation issue specifies for the functions, as the `checks` tags of
# hidden cases (tests/judge/test_case_coverage.py maps each to the cases that check it).
BEHAVIOURS = {
    "float32": "float32 in gives float32 out",
    "batched": "any leading batch dimensions",
    "cross": "queries and keys of different lengths (n_q ≠ n_k)",
    "masked row": "a row whose every key is forbidden gives zero weights, no NaN",
    "1e4": "scores of size 1e4 give no overflow or NaN",
    "bad shape": "a ValueError for shapes that do not fit (mismatched inner sizes, d not divisible by n_heads)",
    "bad size": "a ValueError for a size or count that is not a whole number of at least 1 (0, True, 2.0)",
    "integers": "integer arrays in give a float64 answer (notebook 01's general rule)",
}


class Mistake(NamedTuple):
    """A known mistake: its name, the chapter section that explains it, what to do
    instead, and the function a student who makes it would write (same arguments
    as the exercise), or None when it shows in memory use, not in values; `also`, other
    ways students write the same mistake (each an output of that one name on every case)."""
    name: str
    section: int
    explanation: str
    variant: Callable | None
    also: tuple[Callable, ...] = ()


class Requirement(NamedTuple):
    """A behaviour the exercise's text states, and a wrong answer that breaks it.

    says: the text's own words for it, quoted exactly (line breaks aside), from the
        exercise's part of its notebook or the notebook's introduction.
    broken_by: an answer right in everything but this one behaviour (the exercise's
        arguments), or the name of one of its catalogued mistakes that is; for a
        question answered by a value, that value. Some hidden case must fail it, and
        so must a visible one (tests/judge/test_case_coverage.py).
    unseen: why no visible case can show it; "" when one does.
    docstring: the docstring's own words for the same behaviour, quoted exactly (line breaks
        aside), from the function's docstring in its solution cell (the stub keeps it); a tuple
        of quotes where it states it in more than one place; "" when it does not state it.
    """
    says: str
    broken_by: Any
    unseen: str = ""
    docstring: str | tuple[str, ...] = ""

    @property
    def docstring_quotes(self) -> tuple[str, ...]:
        return (self.docstring,) if isinstance(self.docstring, str) and self.docstring else tuple(self.docstring)


def one_sequence_only(answer: Callable) -> Callable:
    """`answer` written for one sequence: it refuses a first argument with leading batch dimensions (over 2-D)."""
    def unbatched(first, *args, **kwargs):
        if np.ndim(first) > 2:
            raise ValueError(f"expected one sequence, a 2-D array, got shape {np.shape(first)}")
        return answer(first, *args, **kwargs)
    return unbatched


class Seed(int):
    """An input that stands for ``np.random.default_rng(seed)``, new for every call."""


class Points(NamedTuple):
    """Points of an exercise's graded cells: its visible check ``check_<name>``
    (None: it has none, as a "Check yourself" question) and ``hidden_<name>``."""
    check: float | None = 1
    hidden: float = 1


@dataclass(frozen=True)
class CaseSpec:
    """One case's inputs and what to check about them (see `case`)."""
    label: str
    args: tuple
    kwargs: dict
    raises: str | None = None
    checks: tuple[str, ...] = ()
    memory_limit_bytes: int | None = None
    grid_bytes: int | None = None
    seconds: float | None = None


def case(label: str, *args, raises: str | None = None, checks: str = "", memory_limit_bytes: int | None = None,
         grid_bytes: int | None = None, seconds: float | None = None, **kwargs) -> CaseSpec:
    """A case of the exercise on `args` and `kwargs`, called `label` in messages.

    raises: the exception the reference raises here (the answer must raise it too).
    checks: the specified behaviours (`BEHAVIOURS`) this case checks, comma-separated.
    memory_limit_bytes: the most the call may allocate at its peak (grid_bytes is
    the size of the full n_q × n_k grid, for the message).
    seconds: a longer time limit than the grader's default, for a large case.
    """
    tags = tuple(sorted(tag.strip() for tag in checks.split(","))) if checks else ()
    unknown = set(tags) - set(BEHAVIOURS)
    if unknown:
        raise ValueError(f"unknown behaviours {sorted(unknown)}: name them in BEHAVIOURS")
    return CaseSpec(label, args, kwargs, raises, tags, memory_limit_bytes, grid_bytes, seconds)


def count_edges(good: tuple, counts: dict[int, str], *, visible: bool = False, **kwargs) -> list[CaseSpec]:
    """The general rule for a count or size argument (notebook 01's "How your work is checked"), at its edges:
    1 is allowed; 0, True and a whole float (2.0) raise a ValueError. One case each, every count argument in
    turn (`counts`: its index in `good` → its name), the other arguments as in `good` (valid there at 1 too).
    visible: the visible check's share: 1 and 0 for every argument, True and the float for the first only."""
    found = []
    for n, (i, name) in enumerate(sorted(counts.items())):
        edges = ((1, f"{name} = 1, the smallest allowed", None), (0, f"0 as {name}", "ValueError"),
                 (True, f"True as {name}", "ValueError"),
                 (float(max(2, int(good[i]))), f"{name} given as a float", "ValueError"))
        for value, label, raises in edges:
            if not visible or n == 0 or value in (0, 1) and type(value) is int:
                found.append(case(label, *good[:i], value, *good[i + 1:], raises=raises,
                                  checks="bad size" if raises else "", **kwargs))
    return found


def dimension_edges(good: tuple, arrays: dict[int, str], *, more: tuple[int, ...] = (), together: bool = True,
                    **kwargs) -> list[CaseSpec]:
    """An exercise's own rule for an array's dimensions (use it only where its text states one), at its edges:
    every array of `arrays` (its index in `good` → its name) with one dimension fewer (its first row: one token
    `(d,)` where `(n, d)` is asked), one at a time and, when there are several and `together`, all at once; and
    every array of `more` (its shape has no `...`) with one dimension more (a batch of one). A ValueError each,
    tagged "bad shape"; the other arguments as in `good`."""
    def changed(indices, change):
        return tuple(change(a) if i in indices else a for i, a in enumerate(good))

    def shape(args, i):
        return "(" + ", ".join(map(str, np.shape(args[i]))) + ("," if np.ndim(args[i]) == 1 else "") + ")"
    found = []
    sets = [(i,) for i in arrays] + ([tuple(arrays)] if together and len(arrays) > 1 else [])
    for indices in sets:
        args = changed(indices, lambda a: a[0])
        label = " and ".join(f"{arrays[i]} {shape(args, i)}" for i in indices)
        found.append(case(f"{label}: one dimension fewer", *args, raises="ValueError", checks="bad shape", **kwargs))
    for i in more:
        args = changed((i,), lambda a: a[None])
        found.append(case(f"{arrays.get(i, f'argument {i + 1}')} {shape(args, i)}: one dimension more", *args,
                          raises="ValueError", checks="bad shape", **kwargs))
    return found


# How in_integers labels a case, by the kind of integers it makes: signed (int64) or unsigned (uint8).
IN_INTEGERS = {"i": ", in integers", "u": ", in 8-bit unsigned integers"}


def in_integers(spec: CaseSpec, dtype=np.int64) -> CaseSpec:
    """`spec` on integers, for the general rule of notebook 01 that integer input is computed in float64: every
    finite float array among its inputs becomes `dtype`: int64, three times its numbers rounded (some spread),
    or uint8, 64 times their sizes rounded, at most 255 (so that a product or a difference computed in 8-bit
    integers wraps round: 3 − 5 is 254 there). A mask holding −inf stays as it is. Tagged "integers"."""
    unsigned = np.dtype(dtype).kind == "u"

    def rounded(x):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f" and np.isfinite(x).all():
            spread = np.minimum(np.rint(64 * np.abs(x)), np.iinfo(dtype).max) if unsigned else np.rint(3 * x)
            return spread.astype(dtype)
        return x
    label = re.sub(r",? in float(32|64)\b| \(float(32|64)\)", "", spec.label)  # the floats it was drawn in are gone
    return CaseSpec(label + IN_INTEGERS[np.dtype(dtype).kind], tuple(rounded(a) for a in spec.args),
                    {k: rounded(v) for k, v in spec.kwargs.items()}, spec.raises,
                    tuple(sorted(set(spec.checks) - {"float32", "1e4"} | {"integers"})), spec.memory_limit_bytes,
                    spec.grid_bytes, spec.seconds)


def small_unsigned(*shape: int, k: int = 0) -> np.ndarray:
    """8-bit unsigned integers of 0 and 1 in a fixed pattern (`k` shifts it): small enough that no product, sum
    or difference the exercise computes wraps round, so an answer computed in the input's dtype is right too;
    only an answer that refuses unsigned integers, which notebook 01's rule on integers includes, fails."""
    return ((np.arange(int(np.prod(shape))) * 7 + k) % 3 % 2).reshape(shape).astype(np.uint8)


def past_float32(x: np.ndarray) -> np.ndarray:
    """`x` as int64 integers past 2²⁵ = 33,554,432 (2²⁵ plus three times its numbers, rounded), where float32
    holds only every fourth whole number: an answer that computes them in float32, not float64 as notebook 01's
    rule says, loses their last digits (and adding 1 to one changes nothing)."""
    return (2**25 + np.rint(3 * x)).astype(np.int64)


def counted(n: int, noun: str) -> str:
    """"1 head", "3 heads": a number and its noun, for a case's label."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def no_cases(rng=None) -> list[CaseSpec]:
    """The visible cases of an exercise that has no visible check."""
    return []


# The behaviours an exercise's inputs can meet, in the usual groups (Exercise.meets).
ARRAYS = frozenset({"float32", "batched", "bad shape", "integers"})
SCORES = frozenset({"cross", "masked row", "1e4"})
COUNTS = frozenset({"bad size"})


@dataclass(frozen=True)
class Exercise:
    """One exercise, declared once.

    name: the function (or answer) the student writes, and the grade ids
        ``<name>``, ``check_<name>`` and ``hidden_<name>`` of its cells.
    reference: the answer key: a function (expected = reference(*inputs)), or a
        "Check yourself" question's answer itself (a count or a letter).
    visible: () → the cases of the check cell under the exercise, on the
        chapter's worked example (they ship with the release).
    hidden: (rng) → the hidden cases; rng is ``default_rng([HIDDEN_SEED, stream])``,
        or None when the exercise has no stream.
    stream: the exercise's own hidden random stream: a number no other exercise
        uses, so adding or removing one never moves another's hidden inputs.
    mistakes: the known mistakes, named in a failing check's message when they fit.
    built_on: the exercises an answer may call; while it is graded they are the
        reference's (so one mistake costs points once). tests/judge/test_built_on.py
        checks that it names every one.
    requirements: every behaviour the exercise's text states (`Requirement`).
    points: of ``check_<name>`` and ``hidden_<name>`` (course.toml may override).
    shows: what the visible cases are, in the notebook's words: the comment above the check cell
        (kit/notebooks.py writes the check and hidden cells under the exercise's solution cell).
    parts: a tuple answer's parts, named in order (attention: "the output", "the weights"),
        so a message names the failing part.
    computed_from: the part the others are computed from (attention's "the weights"): it
        is checked first, so a message points at it, not at a part wrong only because of it.
    meets: the behaviours (autograder.cases.BEHAVIOURS) its inputs can meet, each of which its
        hidden cases must check (tests/judge/test_case_coverage.py): an exercise that takes no mask
        cannot meet a masked row. ARRAYS, SCORES and COUNTS name the usual groups.
    notebook: filled in by autograder/exercises/__init__.py from the module.
    """
    name: str
    reference: Any
    hidden: Callable[[np.random.Generator | None], list[CaseSpec]]
    visible: Callable[[], list[CaseSpec]] = no_cases
    stream: int | None = None
    mistakes: tuple[Mistake, ...] = ()
    built_on: tuple[str, ...] = ()
    requirements: tuple[Requirement, ...] = ()
    points: Points = Points()
    shows: str = ""
    parts: tuple[str, ...] = ()
    computed_from: str | None = None
    meets: frozenset[str] = frozenset()
    notebook: str = field(default="", compare=False)

    def __post_init__(self):
        if self.computed_from is not None and self.computed_from not in self.parts:
            raise ValueError(f"{self.name}: computed_from {self.computed_from!r} is not one of its parts {self.parts}")

    def hidden_rng(self) -> np.random.Generator | None:
        return None if self.stream is None else np.random.default_rng([HIDDEN_SEED, self.stream])
