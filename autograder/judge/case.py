"""The keys of a case: one call of an exercise and what it must give.

Cases are plain dicts (autograder/cases.py builds them from the registry,
autograder/exercises/; `wire.save_cases` writes them to ``worked_example.npz``); `Case` declares
their keys for the readers.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

# A known mistake on one case: (its name, the chapter section, the explanation, that mistake's own output).
Variant = tuple[str, int, str, Any]


class Case(TypedDict, total=False):
    func: str                  # the exercise (its function or answer name)
    label: str                 # what the case is, as the student reads it
    args: list | None          # the inputs (a Seed stands for a fresh generator); None: the answer is a value
    kwargs: dict[str, Any]
    expected: Any              # the reference's answer (absent when `raises`)
    variants: list[Variant]    # every known mistake's output on these inputs
    raises: str                # the exception these (bad) inputs must raise, by name
    form: Literal["letter", "count"]  # a "Check yourself" answer, read as the chapter accepts it
    checks: list[str]          # the specified behaviours this case checks (autograder.cases.BEHAVIOURS)
    parts: list[str]           # a tuple answer's parts, named in order ("output", "weights")
    computed_from: str         # the part the others are computed from: checked first
    seconds: float             # a longer time limit than the grader's default
    memory_limit_bytes: int    # the most the call may allocate at its peak
    grid_bytes: int            # the size of the full n_q × n_k grid, for the message
