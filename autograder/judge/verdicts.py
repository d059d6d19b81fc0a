"""An outcome against a case: passed, or why not (the policy, plus what a case adds).

A case adds to the comparison policy (policy.py): an answer not started; bad
input that must raise a named exception; a "Check yourself" answer read as
the chapter accepts it (`form`); and a cap on the memory a call may allocate.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .case import Case
from .outcome import CELL_FAILED, Outcome
from .naming import Naming, with_mistake
from .policy import Verdict, describe, is_count, value_problem

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
    """`verdict`, with the kind of failure and the known mistake it matches: the verdict of a
    check of this one case (`Checking`)."""
    checking = Checking(reveal)
    checking.add(label, outcome, case)
    return checking.verdict()


class Checking:
    """One answer checked on the cases of one check, in order.

    Its verdict names a known mistake only when every case run agrees on it
    (naming.Naming): those of this check, and those of the checks that share its
    `naming` (an exercise's visible and hidden checks, where the grader has both). It
    shows the first failing case of this check that tells the named mistake apart, so
    the numbers shown are ones only that mistake gives; with no such case, or no name,
    the first failing case. A failing answer still runs every case: a mistake absent from
    the cases so far (its writing raised there) may be told apart by a later one. Only
    an answer not started is `settled` at once.
    """

    def __init__(self, reveal: bool = True, naming: Naming | None = None):
        self.reveal = reveal
        self.first: Verdict | None = None
        self.naming = Naming() if naming is None else naming
        self._telling: list[tuple[set[str], Verdict]] = []  # each failing case's problem, with the mistakes it tells

    def add(self, label: str, outcome: Outcome, case: Case) -> Verdict | None:
        """What the answer did on one more case: that case's own verdict, naming no mistake."""
        problem = _case_problem(label, outcome, case, self.reveal)
        self.first = self.first or problem
        if not case.get("raises"):  # bad input has no mistake's output to weigh
            told = self._weigh(_value_given(outcome, case), case)
            if problem is not None and told:
                self._telling.append((told, problem))
        return problem

    def _weigh(self, value, case: Case) -> set[str]:
        if value is _NO_VALUE:
            self.naming.add_no_value(case.get("variants", ()))
            return set()
        return self.naming.add(value, case["expected"], case.get("variants", ()),
                               integers="integers" in case.get("checks", ()))

    @property
    def settled(self) -> bool:
        """Is the verdict known whatever the cases left: the answer is not started?"""
        return self.first is not None and self.first.kind == "not started"

    def verdict(self) -> Verdict | None:
        """None when every case run passed; else a failure, naming the mistake the cases agree on."""
        named = self.naming.named()
        shown = next((problem for told, problem in self._telling if named and named[0] in told), self.first)
        return self.first and with_mistake(shown, named)


def case_label(name: str, case: Case) -> str:
    """How every message names a case of exercise `name`."""
    return f"{name} on {case['label']}"


def labelled(name: str, cases: Sequence[Case]) -> list[str]:
    return [case_label(name, case) for case in cases]


OnCase = Callable[[str, Outcome, "Verdict | None", bool], None]  # (label, outcome, its problem, failed before)


def check_verdicts(checks: Sequence[tuple[Sequence[Case], Sequence[str], bool]],
                   outcome_for: Callable[[Case], Outcome], on_case: OnCase | None = None) -> list[Verdict | None]:
    """The verdicts of one answer's checks, each given as (its cases, their labels, reveal), naming a
    known mistake only when the cases of all of them agree on it. Each check runs `outcome_for(case)`
    on its cases in order, every one unless the answer is not started (`Checking.settled`). The one
    loop over cases of every grading path: `on_case` hears of each case as it is run (the visible
    check prints the passing ones)."""
    naming = Naming()
    checkings = []
    for cases, labels, reveal in checks:
        checking = Checking(reveal, naming)
        for case, label in zip(cases, labels, strict=True):
            failed_before, outcome = checking.first is not None, outcome_for(case)
            problem = checking.add(label, outcome, case)
            if on_case is not None:
                on_case(label, outcome, problem, failed_before)
            if checking.settled:
                break
        checkings.append(checking)
    return [checking.verdict() for checking in checkings]


def check_verdict(cases: Sequence[Case], labels: Sequence[str], outcome_for: Callable[[Case], Outcome],
                  reveal: bool = True) -> Verdict | None:
    """The verdict of one check (`check_verdicts`)."""
    return check_verdicts([(cases, labels, reveal)], outcome_for)[0]


_NO_VALUE = object()


def _value_given(outcome: Outcome, case: Case):
    """The value the answer gave, as the case reads it, or _NO_VALUE (it raised, changed its input, not started)."""
    if not outcome.has_value:
        return _NO_VALUE
    return answer_as_given(outcome.value, case["form"]) if case.get("form") else outcome.value


def _case_problem(label: str, outcome: Outcome, case: Case, reveal: bool) -> Verdict | None:
    """How the outcome fails this one case, naming no value-based mistake; None when it passes."""
    if outcome.not_started:
        return Verdict("not started", f"{label}: not started. {outcome.message}")
    if outcome.raised and outcome.error == CELL_FAILED:  # whatever the case expects: there was no answer to call
        return Verdict("error raised", f"{label}: {outcome.message}")
    if case.get("raises"):
        if outcome.raised and outcome.error == case["raises"]:
            return None
        came = f"{outcome.error}: {outcome.message}" if outcome.raised else f"it returned {describe(outcome.value)}"
        rule = COUNT_RULE if "bad size" in (case.get("checks") or ()) else ""
        return Verdict("bad input accepted",
                       f"{label}: expected a {case['raises']} for this bad input, but {came}.{rule}")
    if outcome.changed_input:
        return Verdict("changed input", f"{label}: {outcome.message}.")
    if outcome.raised:
        return Verdict("timed out" if outcome.timed_out else "error raised",
                       f"{label}: your function raised {outcome.error}: {outcome.message}")
    problem = value_problem(label, _value_given(outcome, case), case["expected"], reveal,
                            case.get("parts", ()), case.get("computed_from"))
    if problem and problem.kind == "wrong values" and _in_small_unsigned_integers(case):
        problem = problem._replace(message=problem.message + WRAP_ROUND)
    if problem and outcome.message:  # the grading child's note on what the answer may have missed
        return problem._replace(message=problem.message + outcome.message)
    if problem or "memory_limit_bytes" not in case:
        return problem
    return _memory_problem(label, outcome, case)


# Added where a count or size at its edges (tagged "bad size") was accepted: the rule every exercise shares.
COUNT_RULE = (" A count or size you are given must be a whole number of at least 1, given as an integer: 0, a "
              "negative number, True and a float such as 2.0 raise a ValueError (notebook 01, \"How your work is "
              "checked\").")

# Added to a wrong value on a case given 8-bit unsigned integers: arithmetic in their own dtype wraps round.
WRAP_ROUND = (" (its inputs are 8-bit unsigned integers, which wrap round when computed in their own dtype: 3 − 5 is "
              "254 and 16 × 16 is 0; notebook 01's rule is to compute integers in float64)")


def _in_small_unsigned_integers(case: Case) -> bool:
    return any(isinstance(a, np.ndarray) and a.dtype == np.uint8
               for a in (*(case.get("args") or ()), *(case.get("kwargs") or {}).values()))


def _memory_problem(label: str, outcome: Outcome, case: Case) -> Verdict | None:
    """Blockwise attention must never hold the n_q × n_k grid: its peak allocation is capped. What the
    notebook's cells keep counts too (their arrays are held while the function runs); where what it still held
    after the call explains the excess, the message says so and names no grid."""
    limit, grid, peak, held = case["memory_limit_bytes"], case["grid_bytes"], outcome.peak, outcome.held
    if peak is None:
        return Verdict("too much memory", f"{label}: the memory your function used could not be measured.")
    if peak <= limit:
        return None
    counted = (f"{label}: the values are right, but {peak / 2**20:.1f} MiB were held at the peak (the call's memory "
               f"and what your notebook's cells keep, counted together), more than the {limit / 2**20:.0f} MiB "
               "allowed; ")
    if held is not None and peak - held <= limit:
        return Verdict("too much memory", counted + (
            f"your notebook still held {held / 2**20:.1f} MiB when the call was over, and the call itself took "
            f"about {max(0, peak - held) / 2**20:.1f} MiB.\n"
            "Likely mistake: arrays your notebook's cells keep (a demonstration's inputs in the answer's cell, a "
            "module-level cache) count while your function runs: build them inside a function, or `del` them "
            "when done"))
    return Verdict("too much memory", counted + (
        f"the full n_q × n_k grid is {grid / 2**20:.0f} MiB.\n"
        f"Likely mistake: {FULL_GRID}. Work through the keys one block at a time and keep "
        "only a running maximum, sum and weighted sum per query (chapter section 7)"), FULL_GRID)
