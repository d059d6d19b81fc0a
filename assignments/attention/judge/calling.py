"""Calling a student's answer: quietly, on fresh inputs, under time and memory measures.

Whatever the answer does (returns, raises, never ends, is not started), the
caller gets an `Outcome`; a student's exception is reported, never raised through.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import signal
import sys
import sysconfig
import traceback
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from .case import Case
from .outcome import Outcome
from .policy import describe
from .wire import fresh_inputs

WALL_FACTOR = 4  # a call may wait (sleep, block on a read) this many times its CPU limit


def call(func, args=(), kwargs=None, measure_memory: bool = False) -> Outcome:
    """Run a student function quietly and say what happened.

    Returns a value, "not started" for a `NotImplementedError`, or "raised"
    with the exception's type name and message (the line it came from);
    sys.exit() too is "raised", never the end of the caller's process.
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
    except SystemExit as e:  # sys.exit() or exit() in the answer: its words kept, and the caller's process
        return Outcome.raising("SystemExit", f"sys.exit({e.code!r}) ends the whole program{_where(e.__traceback__)}: "
                                             "a function says an input is bad by raising an exception (ValueError)")
    except Exception as e:  # the student's bug, reported, never raised through
        error, own = _known_as(type(e))
        return Outcome.raising(error, f"{own + ': ' if own else ''}{e}{_where(e.__traceback__)}")


def _known_as(kind: type) -> tuple[str, str]:
    """(the name the checks know an exception by, the student's own name for it or ""). A class the student's code
    defines (class HeadsError(ValueError), in a cell or a module of theirs) is known by the built-in exception
    it extends, as `except ValueError` would catch it; a library's own (NumPy's AxisError, which no check of
    the student's raised) and a built-in one by their own names."""
    file = getattr(sys.modules.get(kind.__module__), "__file__", None)
    if kind.__module__ != "__main__" and not (file and _answers(file)):
        return kind.__name__, ""
    built_in = next(base for base in kind.__mro__ if base.__module__ == "builtins")
    return built_in.__name__, kind.__name__


def _where(tb) -> str:
    """" (line N: its text)" of the last frame of the answer's own code in a traceback (`call`'s own frame
    left out), or "" without one: the line read only for that frame."""
    answer_frames = [(frame, lineno) for frame, lineno in itertools.islice(traceback.walk_tb(tb), 1, None)
                     if _answers(frame.f_code.co_filename)]
    if not answer_frames:
        return ""
    (last,) = traceback.StackSummary.extract(answer_frames[-1:])
    return f" (line {last.lineno}: {last.line})" if last.line else ""


# Code that is never the answer's own: Python's and the installed packages' (NumPy's), and the grader's: this
# folder, and the folder around it where the grading child's program (child.py, whose stand-ins raise the
# reference's errors) sits beside it: the kit's autograder package, or the grading child's own copy of the
# grader. In a student's release the folder around the judge is the student's own, and stays theirs.
_JUDGE = Path(__file__).resolve().parent
_GRADERS = {_JUDGE, _JUDGE.parent} if (_JUDGE.parent / "child.py").is_file() else {_JUDGE}
_NOT_ANSWERS = tuple(str(p) for p in {Path(sysconfig.get_path(k)).resolve() for k in ("stdlib", "purelib", "platlib")}
                     | _GRADERS)


@functools.lru_cache(maxsize=1024)
def _answers(filename: str) -> bool:
    """Is `filename` the student's code (a notebook cell, or a module of theirs), whose line a message may quote?"""
    return filename.startswith("<") and not filename.startswith("<frozen") or \
        not str(Path(filename).resolve()).startswith(_NOT_ANSWERS)


def outcome_of(answer, case: Case) -> Outcome:
    """What `answer` gives on a case: a function is called on fresh copies of
    the inputs; a plain answer (case without "args") is the value itself."""
    if case.get("args") is None:
        return Outcome.returned(answer)
    if not callable(answer):
        return Outcome.raising("TypeError", f"expected a function, got {describe(answer)}")
    args, kwargs = fresh_inputs(case)
    given = [(where, array, array.copy()) for where, array in _arrays_given(args, kwargs)]
    outcome = call(answer, args, kwargs, measure_memory="memory_limit_bytes" in case)
    if not outcome.has_value:
        return outcome
    changed = next((where for where, array, pristine in given if not unchanged(array, pristine)), None)
    if changed is None:
        return outcome
    name = getattr(answer, "__name__", None) or "your function"
    return Outcome.changing(outcome.value, f"{name} changed the caller's {_input_name(answer, changed)} in place: "
                                           "work on a copy, never write into an input")


def unchanged(array: np.ndarray, pristine: np.ndarray) -> bool:
    """Is `array` exactly its `pristine` copy: the same type, dtype, shape and bytes (so NaNs in the same places)?"""
    return type(array) is np.ndarray and array.dtype == pristine.dtype and array.shape == pristine.shape and \
        array.tobytes() == pristine.tobytes()


def _arrays_given(args, kwargs) -> list[tuple[tuple, np.ndarray]]:
    """Every array among the inputs, with where it is: (argument index or keyword, index inside a tuple...)."""
    found = []

    def walk(obj, where):
        if isinstance(obj, np.ndarray):
            found.append((where, obj))
        elif isinstance(obj, (tuple, list)):
            for i, x in enumerate(obj):
                walk(x, (*where, i))
        elif isinstance(obj, dict):
            for k, x in obj.items():
                walk(x, (*where, k))
    for i, x in enumerate(args):
        walk(x, (i,))
    for k, x in kwargs.items():
        walk(x, (k,))
    return found


def _input_name(func, where: tuple) -> str:
    """How a message names the input at `where`: "S (argument 1)", "context (keyword argument)"."""
    first, inner = where[0], "".join(f"[{i!r}]" for i in where[1:])
    if isinstance(first, str):
        return f"{first}{inner} (keyword argument)"
    try:
        params = [p for p in inspect.signature(func).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        name = params[first].name if first < len(params) else None
    except Exception:  # a student's callable without a readable signature
        name = None
    return f"{name}{inner} (argument {first + 1})" if name else f"argument {first + 1}{inner}"


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
