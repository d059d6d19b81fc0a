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


def outcome_of(answer, case: Case) -> Outcome:
    """What `answer` gives on a case: a function is called on fresh copies of
    the inputs; a plain answer (case without "args") is the value itself."""
    if case.get("args") is None:
        return Outcome.returned(answer)
    if not callable(answer):
        return Outcome.raising("TypeError", f"expected a function, got {describe(answer)}")
    return call(answer, *fresh_inputs(case), measure_memory="memory_limit_bytes" in case)


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
