"""The comparison policy: does an answer's value follow the expected value, and if not, how not.

Applied in this order (the release's notebook 01 states it too):

1. type: an array answer must be exactly ``numpy.ndarray`` (not a subclass);
   a tuple must have as many parts as expected. One number may come in any
   form (`is_number`): a Python number, a NumPy scalar or a 0-d array, alike
   to every check; where a count is due it must be an exact integer
   (`is_count`: an int, a NumPy integer or a 0-d integer array, never a
   float such as 128.0); where an array function gives one number, that
   number's dtype counts as an array's would (a Python float is float64);
2. shape: exactly the expected shape (a student's array is never broadcast);
3. dtype: exactly the expected dtype (float32 in gives float32 out);
4. finiteness: NaN or ±inf only where the expected value has them;
5. closeness: ``|got − expected| ≤ tol · max(1, |expected|)`` element by
   element, with ``tol = √eps`` of the dtype: 1.5e-8 for float64, 3.5e-4 for
   float32. Integers must be equal.

When an answer fails, the message says what was expected, what came, where
(the worst element's index) and, only when the answer behaves as a known
mistake, names the mistake and points to the chapter section; otherwise it
suggests nothing. A check names a mistake from all the cases it ran, never
from one alone (`Naming`): the answer must pass this same policy against that
mistake's own output on every case where the mistake gives one (right where
it is right, wrong the same way where it is wrong), and on at least one of
them the mistake must tell itself apart: its output is wrong there and
differs from every other known mistake's. A degenerate case, where two
mistakes give one output or one gives the right answer (n = d, a ratio of
exactly 1, an answer of 0, a fully masked row), so never names either, and an
answer that only coincides with a mistake there is given no name. A mistake is
named only for an answer wrong in its values. An answer right in its values on a case where
a mistake's output is wrong is never given that mistake's name (a hard-coded
division by 2 is right at d_k = 4, where dividing by d_k is not).
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

import numpy as np

# How an answer can fail a case, for class reports: the first step of the policy it breaks.
KINDS = ("not started", "error raised", "timed out", "changed input", "bad input accepted", "wrong type", "wrong shape",
         "wrong dtype", "wrong values", "too much memory")


class Verdict(NamedTuple):
    """Why an answer failed a case: its kind (one of KINDS), the message the
    student reads, and the name of the known mistake it matches (None if none)."""
    kind: str
    message: str
    mistake: str | None = None


def tolerance(dtype) -> float:
    """√eps of a floating dtype: 1.5e-8 for float64, 3.5e-4 for float32."""
    return float(np.sqrt(np.finfo(dtype).eps))


class Foreign:
    """Stands for an object the student returned that is not plain data
    (an ndarray subclass, a custom class): only its description travels."""

    def __init__(self, description: str):
        self.description = description

    def __repr__(self):
        return self.description


def describe(x) -> str:
    """What `x` is, in a message: its shape and dtype, its length, or its type's name."""
    if isinstance(x, Foreign):
        return x.description
    if type(x) is np.ndarray:
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)}"
    return f"{type(x).__module__}.{type(x).__qualname__}".removeprefix("builtins.")


def shown(x, limit: int = 300) -> str:
    """`x` as Python writes it, cut to `limit` characters; what it is (`describe`) when Python cannot write it
    (an integer of over 4,300 digits, an object whose repr fails)."""
    try:
        text = repr(x)
    except Exception:
        return describe(x)
    return text if len(text) <= limit else text[:limit] + "…"


def is_number(x) -> bool:
    """One real number, in any of the forms the checks accept alike: a Python int or float, a NumPy
    integer or floating scalar, or a 0-d array of integers or floats (never a bool)."""
    if type(x) in (int, float):
        return True
    if type(x) is np.ndarray:
        return x.ndim == 0 and x.dtype.kind in "iuf"
    return type(x).__module__ == "numpy" and isinstance(x, (np.integer, np.floating))


def is_count(x) -> bool:
    """An exact integer: an int, a NumPy integer or a 0-d integer array (never a bool, never a
    float such as 128.0 or 67.1e6, whatever its value)."""
    return is_number(x) and (type(x) is int or np.asarray(x).dtype.kind in "iu")


COUNT_IS_EXACT = "a count is exact: compute it with integer arithmetic (//, not /; no rounded figure)"


def _mismatch(got, expected, reveal: bool, parts=(), computed_from=None) -> tuple[str, str] | None:
    """The first way `got` breaks the policy against `expected`: (kind, what), or None.

    parts: a tuple answer's parts, named in order; computed_from: the part the
    others are computed from, checked first, so the message names it and not
    a part wrong only because of it.
    """
    if isinstance(expected, tuple):
        if type(got) not in (tuple, list) or len(got) != len(expected):
            return "wrong type", f"expected a tuple of {len(expected)}, got {describe(got)}"
        for i in sorted(range(len(expected)), key=lambda i: parts[i:i + 1] != (computed_from,)):
            problem = _mismatch(got[i], expected[i], reveal)
            if problem:
                return problem[0], f"{_part_name(i, parts)}: {problem[1]}"
        return None
    if isinstance(expected, np.ndarray):
        if expected.ndim == 0 and type(got) is not np.ndarray and is_number(got):
            number = _numbers(got)  # one number: a NumPy scalar or a Python number is its 0-d array
            got = np.asarray(_as_float(got)) if number is None else number  # ... an integer past 64 bits: ±inf
        return _array_mismatch(got, expected, reveal)
    if isinstance(expected, (bool, str)) or expected is None:
        if type(got) is type(expected) and got == expected:
            return None
        due = shown(expected) if reveal else "another answer"
        return ("wrong values" if type(got) is type(expected) else "wrong type", f"expected {due}, got {shown(got)}")
    if isinstance(expected, (int, np.integer)):  # a count: an exact integer, in any of its forms
        if not is_count(got):
            if is_number(got):
                return "wrong type", f"expected an integer, got {describe(got)} {str(got)[:60]}: {COUNT_IS_EXACT}"
            text = f" {got[:60]}" if isinstance(got, str) else ""
            return "wrong type", f"expected an integer, got {describe(got)}{text}"
        if int(got) != int(expected):
            return "wrong values", (f"expected {_count(int(expected))}, got {_count(int(got))}" if reveal
                                    else f"got {_count(int(got))}, which is not the right count")
        return None
    if isinstance(expected, (float, np.floating)):  # a real number: any of its forms
        if not is_number(got):
            return "wrong type", f"expected a number, got {describe(got)}"
        return _array_mismatch(np.asarray(_as_float(got)), np.asarray(float(expected)), reveal)
    raise TypeError(f"the policy cannot compare against {describe(expected)}")


def _count(n: int) -> str:
    """An integer as the student reads it: with its thousands marked, or its size when it has over 30 digits."""
    if abs(n).bit_length() <= 99:
        return f"{n:,}"
    return f"{'-' if n < 0 else ''}an integer of some {int(abs(n).bit_length() * math.log10(2)) + 1:,} digits"


def _part_name(i: int, parts) -> str:
    """Part i of a tuple answer, by its name when it has one: "the weights (part 1 of the tuple)"."""
    return f"{parts[i]} (part {i} of the tuple)" if i < len(parts) else f"part {i} of the tuple"


def _as_float(x) -> float:
    try:
        return float(x)
    except OverflowError:  # a Python int too large for a float
        return math.inf if x > 0 else -math.inf


def _array_mismatch(got, expected: np.ndarray, reveal: bool) -> tuple[str, str] | None:
    if type(got) is not np.ndarray:
        return "wrong type", f"expected a numpy.ndarray, got {describe(got)}: return a plain array (np.asarray)"
    if got.shape != expected.shape:
        return "wrong shape", f"expected shape {expected.shape}, got shape {got.shape}"
    if got.dtype != expected.dtype:
        return "wrong dtype", f"expected dtype {expected.dtype}, got dtype {got.dtype}"
    if got.dtype.kind in "biu":
        wrong = got != expected
        if not wrong.any():
            return None
        where = tuple(int(i) for i in np.argwhere(wrong)[0])
        return "wrong values", _where_message(where, got, expected, reveal, "")
    bad_finite = ~np.isfinite(got) & ~((got == expected) | (np.isnan(got) & np.isnan(expected)))
    if bad_finite.any():
        where = tuple(int(i) for i in np.argwhere(bad_finite)[0])
        count = int(bad_finite.sum())
        return "wrong values", (f"{count} value{'s' if count > 1 else ''} not finite (NaN or inf); first at index "
                                f"{where}: " + _values_at(where, got, expected, reveal))
    tol = tolerance(expected.dtype)
    error = relative_error(got, expected)
    if not (error <= tol).all():
        where = tuple(int(i) for i in np.unravel_index(np.argmax(error), error.shape)) if error.ndim else ()
        return "wrong values", _where_message(where, got, expected, reveal, f" (tolerance {tol:.1e})")
    return None


def relative_error(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``|got − expected| / max(1, |expected|)`` element by element (both of one shape):
    0 where a NaN or ±inf was due and came (a mistake's output has them), inf where
    one was due and something else came, NaN where a NaN came instead of a number."""
    with np.errstate(all="ignore"):
        error = np.abs(got.astype(np.float64) - expected) / np.maximum(1.0, np.abs(expected))
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))
        return np.where(np.isfinite(expected), error, np.where(same, 0.0, np.inf))


def differs(got, expected) -> np.ndarray:
    """Where `got` breaks the policy's closeness against `expected`: a boolean array of
    their shape, for a figure that marks every wrong value (integers: where not equal).

    got, expected: arrays of the same shape (never broadcast: ValueError otherwise).
    """
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        raise ValueError(f"differs compares arrays of one shape, got {got.shape} and {expected.shape}")
    if expected.dtype.kind not in "fc":
        return np.asarray(got != expected)
    return ~(relative_error(got, expected) <= tolerance(expected.dtype))


def _values_at(where, got, expected, reveal) -> str:
    g, e = got[where], expected[where]
    if reveal:
        return f"expected {e:.6g}, got {g:.6g}"
    return f"got {g:.6g}, off by {abs(float(g) - float(e)):.3g}"


def _where_message(where, got, expected, reveal, tol_note) -> str:
    place = f"at index {where}" if where else "the value"
    return f"worst mismatch {place}: {_values_at(where, got, expected, reveal)}{tol_note}"


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
        problem = _mismatch(got, expected, True)
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
    arrays = [_numbers(x) for x in (got, expected, output)]
    if any(a is None for a in arrays) or len({a.shape for a in arrays}) > 1:
        return _mismatch(got, expected, True) is None or only_in_form(got, expected) or _in_values(got, output)
    g, e, o = arrays
    tol = max([tolerance(a.dtype) for a in arrays if a.dtype.kind == "f"], default=0.0)
    wrong = ~(relative_error(g, e.astype(np.float64)) <= tol)
    return not (wrong & ~(relative_error(g, o.astype(np.float64)) <= tol)).any()


def _numbers(x) -> np.ndarray | None:
    """`x` as an array of real numbers (one number: its 0-d array), or None when it is not one."""
    if type(x) is np.ndarray and x.dtype.kind in "biuf":
        return x
    if not (is_number(x) or type(x) is bool):
        return None
    number = np.asarray(x)
    return number if number.dtype.kind in "biuf" else None  # an integer past 64 bits is an object array


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
            return _mismatch(values.reshape(expected.shape).astype(expected.dtype), expected, True) is None
        if isinstance(expected, (int, float, np.integer, np.floating)) and not isinstance(expected, bool):
            return values.size == 1 and values.dtype.kind in "biuf" and \
                _mismatch(np.asarray(float(values.reshape(())), dtype=np.float64),
                          np.asarray(float(expected), dtype=np.float64), True) is None
    except (TypeError, ValueError, OverflowError):
        return False
    return False


def _differ(got, output) -> bool:
    """Does `got` break the policy against `output` (an output it cannot compare with: yes)?"""
    try:
        return _mismatch(got, output, True) is not None
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


def value_problem(label: str, got, expected, reveal: bool = True, parts=(), computed_from=None) -> Verdict | None:
    """How `got` breaks the policy against `expected`, naming no mistake; None when it follows it.
    parts, computed_from: a tuple answer's part names, and the part checked first (`_mismatch`)."""
    problem = _mismatch(got, expected, reveal, tuple(parts), computed_from)
    return None if problem is None else Verdict(problem[0], f"{label}: {problem[1]}.")


def with_mistake(problem: Verdict, mistake: tuple[str, int, str] | None) -> Verdict:
    """`problem`, naming `mistake` ``(name, section, explanation)``; as it is when None or it names one already."""
    if mistake is None or problem.mistake:
        return problem
    name, section, explanation = mistake
    return problem._replace(message=f"{problem.message}\nLikely mistake: {name}. {explanation} "
                                    f"(chapter section {section})", mistake=name)
