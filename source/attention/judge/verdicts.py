"""An outcome against a case: passed, or why not (the policy, plus what a case adds).

A case adds to the comparison policy (policy.py): an answer not started; bad
input that must raise a named exception; a "Check yourself" answer read as
the chapter accepts it (`form`); and a cap on the memory a call may allocate.
"""

from __future__ import annotations

import numpy as np

from .case import Case
from .outcome import Outcome
from .policy import Verdict, describe, is_count, value_verdict

FULL_GRID = "builds the full n × n grid"  # the mistake that shows in memory, not in values (mistakes.py)


def answer_as_given(answer, form: str):
    """A "Check yourself" answer as the chapter's wording accepts it, read by the one rule
    for a number answer (policy.is_count), as the form check reads it too.

    form "letter": a string in either case, spaces around it ignored ("C" is "c");
    form "count": an exact integer in any of its forms (an int, a NumPy integer, a 0-d
    integer array) is that int; anything else, a float included (128.0 as much as
    67.1e6), stays as it is and is refused: a count is computed with integer arithmetic.
    """
    if form == "letter" and type(answer) is str:
        return answer.strip().lower()
    if form == "count" and is_count(answer):
        return int(answer)
    return answer


def verdict(label: str, outcome: Outcome, case: Case, reveal: bool = True) -> str | None:
    """None when the outcome of a call passes the case, else the message.

    case: "expected" (the right answer) and "variants" (known mistakes), or
    "raises" (the name of the exception the call must raise).
    """
    found = diagnose(label, outcome, case, reveal)
    return found and found.message


def diagnose(label: str, outcome: Outcome, case: Case, reveal: bool = True) -> Verdict | None:
    """`verdict`, with the kind of failure and the known mistake it matches."""
    if outcome.not_started:
        return Verdict("not started", f"{label}: not started. {outcome.message}")
    if case.get("raises"):
        if outcome.raised and outcome.error == case["raises"]:
            return None
        came = f"{outcome.error}: {outcome.message}" if outcome.raised else f"it returned {describe(outcome.value)}"
        return Verdict("bad input accepted", f"{label}: expected a {case['raises']} for this bad input, but {came}.")
    if outcome.changed_input:
        return Verdict("changed input", f"{label}: {outcome.message}.")
    if outcome.raised:
        return Verdict("timed out" if outcome.timed_out else "error raised",
                       f"{label}: your function raised {outcome.error}: {outcome.message}")
    value = answer_as_given(outcome.value, case["form"]) if case.get("form") else outcome.value
    problem = value_verdict(label, value, case["expected"], case.get("variants", ()), reveal)
    if problem or "memory_limit_bytes" not in case:
        return problem
    return _memory_problem(label, outcome.peak, case)


def _memory_problem(label: str, peak: int | None, case: Case) -> Verdict | None:
    """Blockwise attention must never hold the n_q × n_k grid: its peak allocation is capped."""
    limit, grid = case["memory_limit_bytes"], case["grid_bytes"]
    if peak is None:
        return Verdict("too much memory", f"{label}: the memory your function used could not be measured.")
    if peak <= limit:
        return None
    return Verdict("too much memory", (
        f"{label}: the values are right, but the call allocated {peak / 2**20:.1f} MiB at its peak, "
        f"more than the {limit / 2**20:.0f} MiB allowed; the full n_q × n_k grid is {grid / 2**20:.0f} MiB.\n"
        f"Likely mistake: {FULL_GRID}. Work through the keys one block at a time and keep "
        "only a running maximum, sum and weighted sum per query (chapter section 7)"), FULL_GRID)
