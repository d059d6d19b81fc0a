"""Calling a student's answer: quietly, on fresh inputs, under time and memory measures.

Whatever the answer does (returns, raises, never ends, is not started), the
caller gets an `Outcome`; a student's exception is reported, never raised through.
"""

from __future__ import annotations

import contextlib
import signal
import traceback
import tracemalloc
import warnings

import numpy as np

from .case import Case
from .outcome import Outcome
from .policy import describe
from .wire import fresh_inputs

WALL_FACTOR = 4  # a call may wait (sleep, block on a read) this many times its CPU limit


def call(func, args=(), kwargs=None, measure_memory: bool = False) -> Outcome:
    """Run a student function quietly and say what happened.

    Returns a value, "not started" for a `NotImplementedError`, or "raised"
    with the exception's type name and message (the line it came from).
    Warnings are silenced: a warning on stderr must not zero a correct answer.
    With `measure_memory`, a value comes with the peak bytes allocated during
    the call (tracemalloc).
    """
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if not measure_memory:
                return Outcome.returned(func(*args, **(kwargs or {})))
            tracemalloc.start()
            try:
                result = func(*args, **(kwargs or {}))
                return Outcome.returned(result, peak=tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    except NotImplementedError as e:
        return Outcome.unstarted(str(e) or f"{getattr(func, '__name__', 'this function')} is not implemented yet")
    except Exception as e:  # the student's bug, reported, never raised through
        frames = traceback.extract_tb(e.__traceback__)[1:]
        where = f" (line {frames[-1].lineno}: {frames[-1].line})" if frames and frames[-1].line else ""
        return Outcome.raising(type(e).__name__, f"{e}{where}")


INPUT_CHANGED = "InputChanged"  # the error of an outcome whose call wrote into an array it was given


def outcome_of(answer, case: Case) -> Outcome:
    """What `answer` gives on a case: a function is called on fresh copies of
    the inputs; a plain answer (case without "args") is the value itself.

    A call that returns but has changed an array it was given (in place) gives
    an outcome raising INPUT_CHANGED, whatever it returned: every exercise
    promises never to change the caller's arrays."""
    if case.get("args") is None:
        return Outcome.returned(answer)
    if not callable(answer):
        return Outcome.raising("TypeError", f"expected a function, got {describe(answer)}")
    args, kwargs = fresh_inputs(case)
    pristine = fresh_inputs(case)
    outcome = call(answer, args, kwargs, measure_memory="memory_limit_bytes" in case)
    changed = _changed_input((args, kwargs), pristine) if outcome.has_value else None
    if changed:
        return Outcome.raising(INPUT_CHANGED, f"{getattr(answer, '__name__', 'the function')} changed {changed} "
                                              "in place: work on a copy (or on new arrays), never write into an input")
    return outcome


def _changed_input(given, pristine) -> str | None:
    """The first array in `given` (args, kwargs after a call) that differs from its
    copy in `pristine`, described for a message ("its argument 1"), or None."""
    (args, kwargs), (args0, kwargs0) = given, pristine
    places = [(f"its argument {i + 1}", a, b) for i, (a, b) in enumerate(zip(args, args0))]
    places += [(f"its argument {name}=", kwargs[name], kwargs0[name]) for name in kwargs]
    for place, now, before in places:
        if isinstance(before, np.ndarray) and not (
                type(now) is np.ndarray and now.shape == before.shape and now.dtype == before.dtype
                and np.array_equal(now, before, equal_nan=before.dtype.kind in "fc")):
            return f"the array passed as {place}"
    return None


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise TimeoutError in the running code after `seconds` of CPU time, or
    WALL_FACTOR times as long on the clock (main thread, Unix).

    CPU time, so that a correct answer on a machine busy with other work is not
    cut short; the clock, so that code that waits forever is stopped too."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        if signum == signal.SIGPROF:
            raise TimeoutError(f"used more than {seconds:g} s of CPU time (an endless loop?)")
        raise TimeoutError(f"did not finish within {seconds * WALL_FACTOR:g} s (waiting for something forever?)")
    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WALL_FACTOR)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
