"""Your functions, judged and called: a figure draws what they return.

An attempt is your function on one visible case, judged by the check cell's
own rule (``judge``); `_value` calls it on other inputs. `_as_grid` and
`_numbers` make what came back drawable, or say why it cannot be drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from judge import VISIBLE_CASES, call, load_cases, outcome_of, verdict


@dataclass
class Attempt:
    """One of your functions on one visible case."""
    name: str
    state: str           # "not started", "raised", "wrong" or "right"
    value: object = None  # what it returned (None unless it returned)
    message: str = ""    # what the check cell says about it ("" when right)


@cache
def _cases() -> list[dict]:
    return load_cases(VISIBLE_CASES)


def _case(name: str, index: int = 0) -> dict:
    """The index-th visible case of `name` that has an expected value."""
    return [c for c in _cases() if c["func"] == name and "expected" in c][index]


def _attempt(name: str, func, case: dict) -> Attempt:
    outcome = outcome_of(func, case)
    problem = verdict(f"{name} on {case['label']}", outcome, case) or ""
    if outcome.has_value:
        return Attempt(name, "wrong" if problem else "right", outcome.value, problem)
    return Attempt(name, outcome.kind, None, problem)


def _value(func, *args, **kwargs):
    """Your function on other inputs: (value, None) or (None, what happened)."""
    outcome = call(func, args, kwargs)
    if outcome.has_value:
        return outcome.value, None
    return None, outcome.message if outcome.not_started else f"it raised {outcome.error}: {outcome.message}"


def _as_grid(value, shape) -> tuple[np.ndarray | None, str]:
    """Your value as floats of `shape`, ready to draw, with a note; or None and why not."""
    if not isinstance(value, np.ndarray):
        return None, f"cannot draw {_kind(value)} as a grid of shape {shape}"
    if value.dtype.kind not in "biuf":
        return None, f"cannot draw an array of dtype {value.dtype}"
    if value.shape != tuple(shape):
        if value.size != math.prod(shape):
            return None, f"cannot draw your shape {value.shape} as the chapter's {tuple(shape)}"
        return value.reshape(shape).astype(np.float64), f"drawn from your shape {value.shape}"
    return value.astype(np.float64), ""


def _kind(x) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    return type(x).__name__


def _numbers(values) -> np.ndarray:
    """Floats to plot: anything that is not a real number becomes NaN (not drawn)."""
    out = []
    for v in values:
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        out.append(float(v) if ok and np.isfinite(float(v)) else np.nan)
    return np.array(out)
