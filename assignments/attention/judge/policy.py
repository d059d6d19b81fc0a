"""The comparison policy: does an answer's value follow the expected value, and if not, how not.

Applied in this order (the release's notebook 01 states it too):

1. type: an array answer must be exactly ``numpy.ndarray`` (not a subclass);
   a number must be a real number; a tuple must have as many parts as expected;
2. shape: exactly the expected shape (a student's array is never broadcast);
3. dtype: exactly the expected dtype (float32 in gives float32 out);
4. finiteness: NaN or ±inf only where the expected value has them;
5. closeness: ``|got − expected| ≤ tol · max(1, |expected|)`` element by
   element, with ``tol = √eps`` of the dtype: 1.5e-8 for float64, 3.5e-4 for
   float32. Integers must be equal.

When an answer fails, the message says what was expected, what came, where
(the worst element's index) and, only when the answer passes this same policy
against a known mistake's own output on that case, names the mistake and
points to the chapter section; otherwise it suggests nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# How an answer can fail a case, for class reports: the first step of the policy it breaks.
KINDS = ("not started", "error raised", "timed out", "bad input accepted", "wrong type", "wrong shape",
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


def is_number(x) -> bool:
    """A real number: an int or float, or a NumPy integer or floating scalar (never a bool)."""
    return type(x) in (int, float) or type(x).__module__ == "numpy" and isinstance(x, (np.integer, np.floating))


def _mismatch(got, expected, reveal: bool) -> tuple[str, str] | None:
    """The first way `got` breaks the policy against `expected`: (kind, what), or None."""
    if isinstance(expected, tuple):
        if type(got) not in (tuple, list) or len(got) != len(expected):
            return "wrong type", f"expected a tuple of {len(expected)}, got {describe(got)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            problem = _mismatch(g, e, reveal)
            if problem:
                return problem[0], f"part {i} of the tuple: {problem[1]}"
        return None
    if isinstance(expected, np.ndarray):
        return _array_mismatch(got, expected, reveal)
    if isinstance(expected, (bool, str)) or expected is None:
        if type(got) is type(expected) and got == expected:
            return None
        shown = f"{expected!r}" if reveal else "another answer"
        return ("wrong values" if type(got) is type(expected) else "wrong type",
                f"expected {shown}, got {got!r}"[:300])
    if isinstance(expected, (int, np.integer)):
        if not is_number(got) or isinstance(got, (float, np.floating)):
            shown = f" {str(got)[:60]}" if is_number(got) or isinstance(got, str) else ""
            return "wrong type", f"expected an integer, got {describe(got)}{shown}"
        if int(got) != int(expected):
            return "wrong values", (f"expected {int(expected):,}, got {int(got):,}" if reveal
                                    else f"got {int(got):,}, which is not the right count")
        return None
    if isinstance(expected, (float, np.floating)):
        if not is_number(got):
            return "wrong type", f"expected a number, got {describe(got)}"
        return _array_mismatch(np.asarray(float(got)), np.asarray(float(expected)), reveal)
    raise TypeError(f"the policy cannot compare against {describe(expected)}")


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


def diagnosis(got, expected, variants) -> tuple[str, int, str] | None:
    """The one known mistake that fits `got`, as ``(name, section, explanation)``, or None.

    A mistake fits when `got` passes this very policy (type, shape, dtype,
    finiteness, tolerance) against that mistake's own output on the case, and
    that output is itself wrong here (a mistake that gives the right answer on
    a case cannot be what made the answer wrong). An answer wrong only in
    type, shape or dtype fits no value-based mistake, and when two mistakes
    give the same output here the case cannot tell them apart: neither is named.
    """
    variants = list(variants)
    fitting = {(name, section, explanation) for name, section, explanation, output in variants
               if _fits(got, output, expected) and not any(
                   other != name and _same(output, other_output) for other, _, _, other_output in variants)}
    return fitting.pop() if len(fitting) == 1 else None


def _same(output, other_output) -> bool:
    """Two mistakes' outputs that this policy cannot tell apart on a case: neither may be named there."""
    try:
        return _mismatch(output, other_output, True) is None
    except TypeError:
        return False


def _fits(got, output, expected) -> bool:
    try:
        return _mismatch(output, expected, True) is not None and _mismatch(got, output, True) is None
    except TypeError:  # an output the policy cannot compare with: it names nothing
        return False


def judge(label: str, got, expected, variants=(), reveal: bool = True) -> str | None:
    """None when `got` follows the policy against `expected`, else the message.

    variants: ``(name, section, explanation, output)`` for known mistakes, each
    with that mistake's own output on the case; the message names one only
    when it fits (see `diagnosis`), and otherwise says what differs and
    suggests nothing.
    reveal: False for hidden checks: the message then shows the student's
    value and the size of the error, never the expected value.
    """
    found = value_verdict(label, got, expected, variants, reveal)
    return found and found.message


def value_verdict(label: str, got, expected, variants=(), reveal: bool = True) -> Verdict | None:
    """`judge`, with the kind of failure (KINDS) and the known mistake it matches."""
    problem = _mismatch(got, expected, reveal)
    if problem is None:
        return None
    kind, message = problem[0], f"{label}: {problem[1]}."
    fits = diagnosis(got, expected, variants) if kind == "wrong values" else None
    if fits:
        name, section, explanation = fits
        return Verdict(kind, f"{message}\nLikely mistake: {name}. {explanation} (chapter section {section})", name)
    return Verdict(kind, message)
