"""Naming a known mistake: which one an answer makes, read from every case it ran on, never from one alone.

`Naming` gathers the evidence case by case (policy.py says how an answer is
compared with one value): a mistake is named when some case tells it apart
(`telling`: its output is wrong there and differs from every other known
mistake's) and the answer fits it there (`fitting`), and no case rules it
out. A degenerate case (n = d, a ratio of exactly 1, an answer of 0, a fully
masked row), where two mistakes give one output or one gives the right
answer, never names either; an answer right in its values where a mistake's
output is wrong is never given that mistake's name (a hard-coded division by
2 is right at d_k = 4, where dividing by d_k is not). A mistake is named only
for an answer wrong in its values.
"""

from __future__ import annotations

import threading

import numpy as np

from .policy import Foreign, Verdict, as_numbers, is_number, mismatch, relative_error, tolerance, value_problem


def fitting(got, variants) -> set[str]:
    """The names of the known mistakes whose own output on a case `got` follows (passes this
    policy against it); a name with several variants fits when one of them does."""
    return {name for name, _, _, output in variants if not _differ(got, output)}


def telling(expected, variants) -> dict[str, tuple[int, str]]:
    """name → (section, explanation) of the known mistakes a case tells apart: their output
    is wrong there (breaks this policy against `expected`) and differs from the output of
    every other known mistake (variants of one name are one mistake)."""
    wrong = [v for v in variants if _differ(v[3], expected)]
    return {name: (section, explanation) for name, section, explanation, output in wrong
            if all(name == other or _differ(output, theirs) for other, _, _, theirs in wrong)}


SECOND_SLIP = "Other cases fail in another way as well: look for a second slip."


class Naming:
    """Which known mistake an answer makes, read from every case it ran on (one check's, or an exercise's).

    A mistake is named when some case tells it apart (`telling`) and the answer, wrong in
    its values there, fits it (`fitting`), and no case rules it out: one that tells it apart
    where the answer is wrong otherwise than that mistake (some value it gets wrong is not
    the mistake's value there, `_errs_only_as`), one where the answer gave no value where the
    mistake gives one (it raised, timed out, changed its input), or one where the answer is
    right in its values and the mistake's output is wrong in its own. There must be exactly
    one such mistake. A case that does not tell it apart, where the answer is wrong
    otherwise, is a second slip: the mistake is still named, and the message says another
    slip fails other cases (`SECOND_SLIP`); so is a case of integers where the answer departs
    from it (notebook 01's rule on integers broken as well, `add`). So an answer that coincides with a mistake only
    on a degenerate case (n = d, a ratio of 1, an answer of 0, a fully masked row) is given
    no name, and neither is one wrong only in type, shape or dtype.
    """

    def __init__(self):
        self._ruled_out: set[str] = set()   # mistakes a case shows the answer does not make
        self._elsewhere: set[str] = set()   # ... it departs from on a case that does not tell them apart
        self._told: dict[str, tuple[int, str]] = {}  # mistakes fitted on a case that tells them apart

    def add(self, got, expected, variants, integers: bool = False) -> set[str]:
        """One case where the answer gave `got`; returns the names of the mistakes this case tells it makes.

        integers: the case checks notebook 01's rule on integers (its inputs are integers: 8-bit ones wrap
        round, 3 − 5 is 254, in an answer that computes in their dtype). An answer that departs from a mistake
        there may have slipped on that rule alone: the case counts as a second slip, never as evidence against
        the mistake the other cases show."""
        problem = mismatch(got, expected, True)
        if problem is None or problem[0] != "wrong values" and only_in_form(got, expected):
            # Right in its values where a mistake is wrong in its own: whatever it does, not that mistake.
            self._ruled_out |= _of_case(_wrong_in_values, expected, variants)
            return set()  # right in its values here: it tells no mistake
        names = {v[0] for v in variants}
        departs = names - {v[0] for v in variants if _errs_only_as(got, expected, v[3])}
        tells = _of_case(telling, expected, variants)
        self._ruled_out |= set() if integers else departs & set(tells)
        self._elsewhere |= departs if integers else departs - set(tells)
        fits = fitting(got, variants)
        told = {name: told for name, told in tells.items() if name in fits}
        self._told |= told
        return set(told)

    def add_no_value(self, variants) -> None:
        """One case where the answer gave no value to weigh: every mistake with an output there is ruled out."""
        self._ruled_out |= {v[0] for v in variants}

    def named(self) -> tuple[str, int, str] | None:
        """The mistake the answer makes, as ``(name, section, explanation)``, or None."""
        left = [(name, *told) for name, told in self._told.items() if name not in self._ruled_out]
        if len(left) != 1:
            return None
        name, section, explanation = left[0]
        return name, section, f"{explanation} {SECOND_SLIP}" if name in self._elsewhere else explanation


def _wrong_in_values(expected, variants) -> set[str]:
    """The names of the known mistakes whose output on a case is wrong in its values (not only in form)."""
    return {v[0] for v in variants} - {v[0] for v in variants
                                        if not _differ(v[3], expected) or only_in_form(v[3], expected)}


_CASE_FACTS: dict[tuple[object, int, int], tuple] = {}  # (what, id(expected), id(variants)) → (expected, variants, fact)
_CASE_FACTS_KEPT = 4096
_CASE_FACTS_LOCK = threading.Lock()


def _of_case(what, expected, variants):
    """what(expected, variants): a fact of one case alone (its expected value and its mistakes' outputs, the
    same for every answer), worked out once per case for every answer graded in this process. A case is never
    changed once built; the entry keeps both objects, so their ids name them while it is kept (the last
    _CASE_FACTS_KEPT cases)."""
    key = (what, id(expected), id(variants))
    kept = _CASE_FACTS.get(key)
    if kept is None:
        kept = (expected, variants, what(expected, variants))
        with _CASE_FACTS_LOCK:  # several students are graded at once, each in a thread
            while len(_CASE_FACTS) >= _CASE_FACTS_KEPT:
                del _CASE_FACTS[next(iter(_CASE_FACTS))]
            _CASE_FACTS[key] = kept
    return kept[2]


def _errs_only_as(got, expected, output) -> bool:
    """Is every value `got` gets wrong against `expected` the value `output` has there?

    Element by element where the three are arrays of one shape (at the looser tolerance of
    their dtypes, so a float32 answer can match a float64 output), part by part for
    tuples; otherwise as wholes: `got` right in its values, or `output`'s values in
    another form (a transposed shape, an integer dtype)."""
    if isinstance(expected, tuple):
        parts = (got, output)
        if all(type(x) in (tuple, list) and len(x) == len(expected) for x in parts):
            return all(_errs_only_as(g, e, o) for g, e, o in zip(got, expected, output))
    arrays = [as_numbers(x) for x in (got, expected, output)]
    if any(a is None for a in arrays) or len({a.shape for a in arrays}) > 1:
        return mismatch(got, expected, True) is None or only_in_form(got, expected) or _in_values(got, output)
    g, e, o = arrays
    tol = max([tolerance(a.dtype) for a in arrays if a.dtype.kind == "f"], default=0.0)
    wrong = ~(relative_error(g, e.astype(np.float64)) <= tol)
    return not (wrong & ~(relative_error(g, o.astype(np.float64)) <= tol)).any()


def _in_values(got, output) -> bool:
    """Does `got` give `output`'s values: it follows the policy against it, or the two differ only in
    form, read either way (`output` in `got`'s form too: a float32 answer against a float64 output)?"""
    return not _differ(got, output) or only_in_form(got, output) or only_in_form(output, got)


def only_in_form(got, expected) -> bool:
    """Is `got` off from `expected` only in type, shape or dtype: its values, read as
    `expected`'s type, shape and dtype (same number of values), follow the policy?"""
    if isinstance(expected, tuple):
        return type(got) in (tuple, list) and len(got) == len(expected) and \
            all(only_in_form(g, e) for g, e in zip(got, expected))
    try:
        values = np.asarray(got if not isinstance(got, Foreign) else None)
        if isinstance(expected, np.ndarray):
            if values.size != expected.size or values.dtype.kind not in "biuf":
                return False
            return mismatch(values.reshape(expected.shape).astype(expected.dtype), expected, True) is None
        if isinstance(expected, (int, float, np.integer, np.floating)) and not isinstance(expected, bool):
            return values.size == 1 and values.dtype.kind in "biuf" and \
                mismatch(np.asarray(float(values.reshape(())), dtype=np.float64),
                         np.asarray(float(expected), dtype=np.float64), True) is None
    except (TypeError, ValueError, OverflowError):
        return False
    return False


def _differ(got, output) -> bool:
    """Does `got` break the policy against `output` (an output it cannot compare with: yes)?"""
    try:
        return mismatch(got, output, True) is not None
    except TypeError:
        return True


def value_verdict(label: str, got, expected, variants=(), reveal: bool = True, parts=(),
                  computed_from=None) -> Verdict | None:
    """None when `got` follows the policy against `expected`, else the failure: its message, its kind (KINDS)
    and the known mistake it matches, on this one case (`Naming`); a tuple answer's failing part named (see
    `value_problem`).

    variants: ``(name, section, explanation, output)`` for known mistakes, each with that mistake's own output
    on the case; the message names one only when it fits, and otherwise says what differs and suggests nothing.
    reveal: False for hidden checks: the message then shows the student's value and the size of the error,
    never the expected value.
    """
    problem = value_problem(label, got, expected, reveal, parts, computed_from)
    if problem is None:
        return None
    naming = Naming()
    naming.add(got, expected, variants)
    return with_mistake(problem, naming.named())


def with_mistake(problem: Verdict, mistake: tuple[str, int, str] | None) -> Verdict:
    """`problem`, naming `mistake` ``(name, section, explanation)``; as it is when None or it names one already."""
    if mistake is None or problem.mistake:
        return problem
    name, section, explanation = mistake
    return problem._replace(message=f"{problem.message}\nLikely mistake: {name}. {explanation} "
                                    f"(chapter section {section})", mistake=name)
