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

When an answer fails, the message says what was expected, what came and
where (the worst element's index); naming the known mistake it makes, from
every case it ran on, is naming.py.

One job, kept whole past 250 lines: the rules above, applied in their order by one function (`mismatch`).
"""

from __future__ import annotations

import math
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
    """Stands for an object the student returned that is not plain data (an ndarray subclass, a custom class, an
    array of Python objects): only its description, and what to return instead, travel."""
    PLAIN = "return a plain array (np.asarray)"

    def __init__(self, description: str, advice: str = PLAIN):
        self.description, self.advice = description, advice

    def __repr__(self):
        return self.description


TEXT = "return str(x), a plain Python str"  # for text of another type (NumPy's numpy.str_)


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
    """An exact integer: an int, a NumPy integer or a 0-d integer array (never a bool, nor a float: 128.0, 67.1e6)."""
    return is_number(x) and (type(x) is int or np.asarray(x).dtype.kind in "iu")


COUNT_IS_EXACT = "a count is exact: compute it with integer arithmetic (//, not /; no rounded figure)"


def mismatch(got, expected, reveal: bool, parts=(), computed_from=None) -> tuple[str, str] | None:
    """The first way `got` breaks the policy against `expected`: (kind, what), or None.

    parts: a tuple answer's parts, named in order; computed_from: the part the
    others are computed from, checked first, so the message names it and not
    a part wrong only because of it.
    """
    if isinstance(expected, tuple):
        if type(got) not in (tuple, list) or len(got) != len(expected):
            return "wrong type", f"expected a tuple of {len(expected)}, got {describe(got)}"
        for i in sorted(range(len(expected)), key=lambda i: parts[i:i + 1] != (computed_from,)):
            problem = mismatch(got[i], expected[i], reveal)
            if problem:
                return problem[0], f"{_part_name(i, parts)}: {problem[1]}{_reordered(got, expected, parts)}"
        return None
    if isinstance(expected, np.ndarray):
        if expected.ndim == 0 and type(got) is not np.ndarray and is_number(got):
            number = as_numbers(got)  # one number: a NumPy scalar or a Python number is its 0-d array
            got = np.asarray(_as_float(got)) if number is None else number  # ... an integer past 64 bits: ±inf
        return _arraymismatch(got, expected, reveal)
    if isinstance(expected, (bool, str)) or expected is None:
        if type(got) is type(expected) and got == expected:
            return None
        if type(got) is type(expected):
            return "wrong values", f"expected {shown(expected) if reveal else 'another answer'}, got {shown(got)}"
        kind = {bool: "True or False", str: "a str"}.get(type(expected), "None")
        due = f"{shown(expected)} ({kind})" if reveal and kind != "None" else kind
        text = isinstance(expected, str) and (isinstance(got, str) or isinstance(got, Foreign) and got.advice == TEXT)
        return "wrong type", f"expected {due}, got {shown(got)}" + (f": {TEXT}" if text else "")
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
        return _arraymismatch(np.asarray(_as_float(got)), np.asarray(float(expected)), reveal)
    raise TypeError(f"the policy cannot compare against {describe(expected)}")


def _count(n: int) -> str:
    """An integer as the student reads it: with its thousands marked, or its size when it has over 30 digits."""
    if abs(n).bit_length() <= 99:
        return f"{n:,}"
    return f"{'-' if n < 0 else ''}an integer of some {int(abs(n).bit_length() * math.log10(2)) + 1:,} digits"


def _part_name(i: int, parts) -> str:
    """Part i of a tuple answer, by its name when it has one: "the weights (the second of the tuple)"."""
    ordinals = ("first", "second", "third", "fourth", "fifth")
    place = f"the {ordinals[i]} of the tuple" if i < len(ordinals) else f"item [{i}] of the tuple"
    return f"{parts[i]} ({place})" if i < len(parts) else place


def _reordered(got, expected: tuple, parts) -> str:
    """A note when each part of a tuple answer is right in another place (`return weights, output`); or ""."""
    order = [next((k for k, e in enumerate(expected) if mismatch(g, e, False) is None), None) for g in got]
    if None in order or sorted(order) != list(range(len(expected))):
        return ""
    names = [parts[k] if k < len(parts) else f"part {k}" for k in range(len(expected))]
    return f"; your tuple holds the right parts in another order, ({', '.join(names[k] for k in order)}): " \
           f"return ({', '.join(names)})"


def _as_float(x) -> float:
    try:
        return float(x)
    except OverflowError:  # a Python int too large for a float
        return math.inf if x > 0 else -math.inf


# Why float32 in comes out float64, most often: a NumPy float64 in the arithmetic.
FLOAT32_WIDENED = (" (float32 meets a float64 NumPy value and becomes float64: `np.sqrt(d_k)` of an integer is one; "
                   "divide by `math.sqrt(d_k)`, a Python float, which keeps float32, or give back `.astype` of the "
                   "input's dtype)")


def _arraymismatch(got, expected: np.ndarray, reveal: bool) -> tuple[str, str] | None:
    if type(got) is not np.ndarray:
        return "wrong type", f"expected a numpy.ndarray, got {describe(got)}: {getattr(got, 'advice', Foreign.PLAIN)}"
    if got.shape != expected.shape:
        return "wrong shape", f"expected shape {expected.shape}, got shape {got.shape}"
    if got.dtype != expected.dtype:
        return "wrong dtype", f"expected dtype {expected.dtype}, got dtype {got.dtype}" + (
            FLOAT32_WIDENED if (expected.dtype, got.dtype) == (np.float32, np.float64) else "")
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


def as_numbers(x) -> np.ndarray | None:
    """`x` as an array of real numbers (one number: its 0-d array), or None when it is not one."""
    if type(x) is np.ndarray and x.dtype.kind in "biuf":
        return x
    if not (is_number(x) or type(x) is bool):
        return None
    number = np.asarray(x)
    return number if number.dtype.kind in "biuf" else None  # an integer past 64 bits is an object array


def relative_error(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``|got − expected| / max(1, |expected|)`` element by element (both of one shape):
    0 where a NaN or ±inf was due and came (a mistake's output has them), inf where
    one was due and something else came, NaN where a NaN came instead of a number."""
    with np.errstate(all="ignore"):
        error = np.abs(got.astype(np.result_type(got, np.float64)) - expected) / np.maximum(1.0, np.abs(expected))
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
    if not reveal:
        return f"got {_digits(g, 6)}, off by {abs(float(g) - float(e)):.3g}"
    for digits in (6, 9, 12, 17):  # as many digits as tell the two apart: never "expected 0.906212, got 0.906212"
        shown_e, shown_g = _digits(e, digits), _digits(g, digits)
        if shown_e != shown_g:
            break
    off = f", off by {abs(float(g) - float(e)):.2g}" if digits > 6 and np.isfinite(float(g) - float(e)) else ""
    return f"expected {shown_e}, got {shown_g}{off}"


def _digits(x, digits: int) -> str:
    """A number to `digits` significant digits; an integer whole (2247460, not 2.24746e+06)."""
    return str(int(x)) if np.asarray(x).dtype.kind in "biu" else f"{x:.{digits}g}"


def _where_message(where, got, expected, reveal, tol_note) -> str:
    found = f"{_values_at(where, got, expected, reveal)}{tol_note}"
    return f"worst mismatch at index {where}: {found}" if where else found


def value_problem(label: str, got, expected, reveal: bool = True, parts=(), computed_from=None) -> Verdict | None:
    """How `got` breaks the policy against `expected`, naming no mistake; None when it follows it.
    parts, computed_from: a tuple answer's part names, and the part checked first (`mismatch`)."""
    problem = mismatch(got, expected, reveal, tuple(parts), computed_from)
    return None if problem is None else Verdict(problem[0], f"{label}: {problem[1]}.")
