"""One comparison policy for every check in the kit, visible or hidden.

This file is copied unchanged into the student release (as ``judge.py``), so
it holds no reference code and no hidden values: it only compares an answer
with an expected value that it is given.

The policy, in the order it is applied:

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

import ast
import base64
import contextlib
import importlib
import io
import json
import os
import signal
import sys
import traceback
import tracemalloc
import types
import warnings
import zipfile
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["CheckFailed", "NotStarted", "Verdict", "tolerance", "judge", "diagnosis", "call", "verdict", "diagnose",
           "check", "check_answer_form"]


class CheckFailed(AssertionError):
    """A check found a wrong answer; the message says what and where."""

    def _render_traceback_(self) -> list[str]:
        """How IPython shows this failure in a notebook: the student's cell and the
        message, never the checker's own frames (a cell still fails: the kernel
        sends an error output, which validate and autograde read)."""
        from IPython import get_ipython  # only a kernel calls this method

        shell = get_ipython()
        if shell is None:
            return traceback.format_exception_only(type(self), self)
        frames, tb = [], self.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename != __file__:
                frames.append(tb)
            tb = tb.tb_next
        students = None
        for tb in reversed(frames):  # the same frames, relinked without this file's
            students = types.TracebackType(students, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
        return shell.InteractiveTB.structured_traceback(type(self), self, students)


class NotStarted(NotImplementedError):
    """Raised by an exercise's stub: names the function still to write."""

    def __init__(self, message: str | None = None):
        if message is None:
            name = sys._getframe(1).f_code.co_name
            message = (f"{name} is not implemented yet: replace `raise NotStarted()` "
                       f"in the cell that defines {name} with your code." if name != "<module>" else
                       "this answer is not given yet: replace `raise NotStarted()` with your answer.")
        super().__init__(message)


# ---------------------------------------------------------------- the policy

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


def _describe(x) -> str:
    if isinstance(x, Foreign):
        return x.description
    if type(x) is np.ndarray:
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)}"
    return f"{type(x).__module__}.{type(x).__qualname__}".removeprefix("builtins.")


def _is_number(x) -> bool:
    return type(x) in (int, float) or type(x).__module__ == "numpy" and isinstance(x, (np.integer, np.floating))


def _mismatch(got, expected, reveal: bool) -> tuple[str, str] | None:
    """The first way `got` breaks the policy against `expected`: (kind, what), or None."""
    if isinstance(expected, tuple):
        if type(got) not in (tuple, list) or len(got) != len(expected):
            return "wrong type", f"expected a tuple of {len(expected)}, got {_describe(got)}"
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
        if not _is_number(got) or isinstance(got, (float, np.floating)):
            shown = f" {str(got)[:60]}" if _is_number(got) or isinstance(got, str) else ""
            return "wrong type", f"expected an integer, got {_describe(got)}{shown}"
        if int(got) != int(expected):
            return "wrong values", (f"expected {int(expected):,}, got {int(got):,}" if reveal
                                    else f"got {int(got):,}, which is not the right count")
        return None
    if isinstance(expected, (float, np.floating)):
        if not _is_number(got):
            return "wrong type", f"expected a number, got {_describe(got)}"
        return _array_mismatch(np.asarray(float(got)), np.asarray(float(expected)), reveal)
    raise TypeError(f"the policy cannot compare against {_describe(expected)}")


def _array_mismatch(got, expected: np.ndarray, reveal: bool) -> tuple[str, str] | None:
    if type(got) is not np.ndarray:
        return "wrong type", f"expected a numpy.ndarray, got {_describe(got)}: return a plain array (np.asarray)"
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
    with np.errstate(all="ignore"):
        error = np.abs(got.astype(np.float64) - expected) / np.maximum(1.0, np.abs(expected))
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))  # NaN where NaN was due (a mistake's output)
        error = np.where(np.isfinite(expected), error, np.where(same, 0.0, np.inf))
    if not (error <= tol).all():
        where = tuple(int(i) for i in np.unravel_index(np.argmax(error), error.shape)) if error.ndim else ()
        return "wrong values", _where_message(where, got, expected, reveal, f" (tolerance {tol:.1e})")
    return None


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
    fitting = {(name, section, explanation) for name, section, explanation, output in variants
               if _fits(got, output, expected)}
    return fitting.pop() if len(fitting) == 1 else None


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
    found = _judged(label, got, expected, variants, reveal)
    return found and found.message


def _judged(label: str, got, expected, variants, reveal: bool) -> Verdict | None:
    problem = _mismatch(got, expected, reveal)
    if problem is None:
        return None
    kind, message = problem[0], f"{label}: {problem[1]}."
    fits = diagnosis(got, expected, variants)
    if fits:
        name, section, explanation = fits
        return Verdict(kind, f"{message}\nLikely mistake: {name}. {explanation} (chapter section {section})", name)
    return Verdict(kind, message)


# ---------------------------------------------------------------- calling a student function


def call(func, args=(), kwargs=None, measure_memory: bool = False) -> tuple:
    """Run a student function quietly and say what happened.

    Returns ("value", result), ("not started", why) for a `NotImplementedError`,
    or ("raised", exception type name, message). Warnings are silenced: a
    warning on stderr must not zero a correct answer. With `measure_memory`,
    a value comes with the peak bytes allocated during the call (tracemalloc):
    ("value", result, peak).
    """
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if not measure_memory:
                return "value", func(*args, **(kwargs or {}))
            tracemalloc.start()
            try:
                result = func(*args, **(kwargs or {}))
                return "value", result, tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    except NotImplementedError as e:
        return "not started", str(e) or f"{getattr(func, '__name__', 'this function')} is not implemented yet"
    except Exception as e:  # the student's bug, reported, never raised through
        frames = traceback.extract_tb(e.__traceback__)[1:]
        where = f" (line {frames[-1].lineno}: {frames[-1].line})" if frames and frames[-1].line else ""
        return "raised", type(e).__name__, f"{e}{where}"


def outcome_of(answer, case: dict) -> tuple:
    """What `answer` gives on a case: a function is called on fresh copies of
    the inputs; a plain answer (case without "args") is the value itself."""
    if case.get("args") is None:
        return "value", answer
    if not callable(answer):
        return "raised", "TypeError", f"expected a function, got {_describe(answer)}"
    return call(answer, *fresh_inputs(case), measure_memory="memory_limit_bytes" in case)


def answer_as_given(answer, form: str):
    """A "Check yourself" answer as the chapter's wording accepts it.

    form "letter": a string in either case, spaces around it ignored ("C" is "c");
    form "count": a number with no fractional part is that int (128.0 is 128,
    4096 // 32 already is), while 67.1e6 stays a float and is not the exact count.
    """
    if form == "letter" and type(answer) is str:
        return answer.strip().lower()
    if form == "count" and _is_number(answer):
        if isinstance(answer, (int, np.integer)):
            return int(answer)
        if np.isfinite(answer) and float(answer).is_integer():
            return int(answer)
    return answer


def verdict(label: str, outcome: tuple, case: dict, reveal: bool = True) -> str | None:
    """None when the outcome of a call passes the case, else the message.

    case: "expected" (the right answer) and "variants" (known mistakes), or
    "raises" (the name of the exception the call must raise).
    """
    found = diagnose(label, outcome, case, reveal)
    return found and found.message


def diagnose(label: str, outcome: tuple, case: dict, reveal: bool = True) -> Verdict | None:
    """`verdict`, with the kind of failure and the known mistake it matches."""
    if outcome[0] == "not started":
        return Verdict("not started", f"{label}: not started. {outcome[1]}")
    if case.get("raises"):
        if outcome[0] == "raised" and outcome[1] == case["raises"]:
            return None
        came = f"{outcome[1]}: {outcome[2]}" if outcome[0] == "raised" else f"it returned {_describe(outcome[1])}"
        return Verdict("bad input accepted", f"{label}: expected a {case['raises']} for this bad input, but {came}.")
    if outcome[0] == "raised":
        return Verdict("timed out" if outcome[1] == "TimeoutError" else "error raised",
                       f"{label}: your function raised {outcome[1]}: {outcome[2]}")
    if case.get("form"):
        outcome = ("value", answer_as_given(outcome[1], case["form"]), *outcome[2:])
    problem = _judged(label, outcome[1], case["expected"], case.get("variants", ()), reveal)
    if problem or "memory_limit_bytes" not in case:
        return problem
    return _memory_problem(label, outcome[2] if len(outcome) > 2 else None, case)


FULL_GRID = "builds the full n × n grid"  # the mistake that shows in memory, not in values (mistakes.py)


def _memory_problem(label: str, peak: int | None, case: dict) -> Verdict | None:
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


# ---------------------------------------------------------------- one exercise at a time

# Exercise → the exercises an answer to it may call (tests/test_built_on.py derives
# them from the answer key and the notebooks). While it is graded, each of these
# is the reference's, not the student's own: a mistake costs the points of its
# own exercise only. Blockwise attention has none: its memory is measured,
# and work done by a stand-in would not count.
BUILT_ON = {exercise: tuple(deps) for exercise, deps in  # generated from the exercise registry by `make release`
            json.loads((Path(__file__).parent / "judge" / "built_on.json").read_text()).items()}


@contextlib.contextmanager
def standing_in(name: str, answer, reference_of):
    """While `answer` (the student's `name`) runs, the exercises it is built on
    are `reference_of(exercise)` in its module namespace, defined or not (a
    deleted cell costs its own points only); put back as they were afterwards.
    With `reference_of` None, the student's own functions run."""
    namespace = getattr(answer, "__globals__", None)
    if reference_of is None or not isinstance(namespace, dict):
        yield
        return
    missing = object()
    own = {dep: namespace.get(dep, missing) for dep in BUILT_ON.get(name, ())}
    try:
        namespace.update({dep: reference_of(dep) for dep in own})
        yield
    finally:
        for dep, value in own.items():
            if value is missing:
                namespace.pop(dep, None)
            else:
                namespace[dep] = value


# ---------------------------------------------------------------- loading a notebook's answers


WALL_FACTOR = 4  # a call may wait (sleep, block on a read) this many times its CPU limit


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


def _runs_when_loaded(cell: dict) -> bool:
    """Set-up and answer cells, and code cells of the student's own (no nbgrader metadata)."""
    metadata = cell.get("metadata", {})
    meta = metadata.get("nbgrader", {})
    return cell.get("cell_type") == "code" and (
        "nbgrader" not in metadata or meta.get("solution", False)
        or str(meta.get("grade_id", "")).startswith("setup_"))


# What runs of a cell of the student's own: definitions, never demonstrations.
_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
                ast.AnnAssign)


def _definitions(source: str) -> str:
    """The imports, functions, classes and assignments of a cell; '' if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    tree.body = [node for node in tree.body if isinstance(node, _DEFINITIONS)]
    return ast.unparse(tree)


def answer_cells(path, cells=None) -> list[tuple[str, str]]:
    """(grade_id, source) of a notebook's set-up and answer cells, in order, and
    the definitions in cells of the student's own (labelled "your cell N")."""
    if cells is None:
        with open(path, encoding="utf-8") as f:
            cells = json.load(f)["cells"]
    found = []
    for number, cell in enumerate(cells, 1):
        if not _runs_when_loaded(cell):
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if "nbgrader" in cell.get("metadata", {}):
            found.append((cell["metadata"]["nbgrader"]["grade_id"], source))
        else:
            found.append((f"your cell {number}", _definitions(source)))
    return found


def fresh_namespace() -> dict:
    return {"__name__": "__answers__", "np": np, "NotStarted": NotStarted, "__cell_errors__": []}


def run_cells(cells, namespace: dict, start: int = 0, seconds_per_cell: float | None = None, until=None,
              where: str = "notebook") -> int:
    """Run cells[start:] in `namespace`; returns the index of the next cell to run.

    A cell that fails, runs past `seconds_per_cell` or calls sys.exit is
    recorded in ``namespace["__cell_errors__"]`` and the next cell still runs.
    until: stop after the first cell for which until(namespace) is true, so a
    later cell (one that ends the process, say) cannot spoil earlier answers.
    """
    if until is not None and until(namespace):
        return start
    for index in range(start, len(cells)):
        grade_id, source = cells[index]
        try:
            with warnings.catch_warnings(), time_limit(seconds_per_cell):
                warnings.simplefilter("ignore")
                exec(compile(source, f"<{where}: {grade_id}>", "exec"), namespace)
        except SystemExit as e:
            namespace["__cell_errors__"].append(f"{grade_id}: the cell called sys.exit({e.code!r}) and was stopped")
        except (Exception, KeyboardInterrupt) as e:
            namespace["__cell_errors__"].append(f"{grade_id}: {type(e).__name__}: {e}")
        if until is not None and until(namespace):
            return index + 1
    return len(cells)


def solution_namespace(path, cells=None, seconds_per_cell: float | None = None) -> dict:
    """Run a notebook's set-up and answer cells, in order; return their names.

    Demonstrations and checks are skipped (see `run_cells` for failures).
    cells: the notebook's cells, when the caller has already read them.
    """
    namespace = fresh_namespace()
    run_cells(answer_cells(path, cells), namespace, seconds_per_cell=seconds_per_cell, where=Path(path).name)
    return namespace


# ---------------------------------------------------------------- data: JSON structure + npz arrays


class Seed(int):
    """Stands for ``np.random.default_rng(seed)``: every decode makes a fresh generator."""


def encode(obj, arrays: dict, prefix: str = "a"):
    """A JSON-able form of `obj`; its arrays go into `arrays` under fresh keys."""
    if isinstance(obj, np.ndarray):
        key = f"{prefix}{len(arrays)}"
        arrays[key] = obj
        return {"array": key}
    if isinstance(obj, Seed):
        return {"rng": int(obj)}
    if isinstance(obj, Foreign):
        return {"foreign": obj.description}
    if isinstance(obj, tuple):
        return {"tuple": [encode(x, arrays, prefix) for x in obj]}
    if isinstance(obj, list):
        return [encode(x, arrays, prefix) for x in obj]
    if isinstance(obj, dict):
        return {"dict": {k: encode(v, arrays, prefix) for k, v in obj.items()}}
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot encode {_describe(obj)}")


def decode(data, arrays, live: bool = False):
    """The inverse of `encode`. With `live`, every Seed becomes a new generator."""
    if isinstance(data, list):
        return [decode(x, arrays, live) for x in data]
    if isinstance(data, dict):
        if "array" in data:
            return arrays[data["array"]]
        if "tuple" in data:
            return tuple(decode(x, arrays, live) for x in data["tuple"])
        if "foreign" in data:
            return Foreign(data["foreign"])
        if "rng" in data:
            return np.random.default_rng(data["rng"]) if live else Seed(data["rng"])
        return {k: decode(v, arrays, live) for k, v in data["dict"].items()}
    return data


def to_line(message: dict) -> str:
    """One message between the grader and its child: the `save_cases` form of it, in base64 (no newline)."""
    buffer = io.BytesIO()
    save_cases(buffer, [message])
    return base64.b64encode(buffer.getvalue()).decode()


def from_line(line: str | bytes) -> dict:
    """The message of a `to_line` line; read with allow_pickle=False."""
    return load_cases(io.BytesIO(base64.b64decode(line)))[0]


def save_cases(path, cases: list[dict]) -> None:
    """Write cases (dicts of plain data and arrays) to one ``.npz`` file.

    The file is byte-for-byte the same for the same cases (fixed zip dates),
    so a regenerated release can be compared with the committed one.
    """
    arrays: dict = {}
    structure = encode(cases, arrays)
    arrays = {"__cases__": np.array(json.dumps(structure, sort_keys=True)), **arrays}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0)),
                             buffer.getvalue(), zipfile.ZIP_DEFLATED)


def plain(obj, depth: int = 0):
    """`obj` as plain data (exact ndarrays, numbers, strings, tuples), or a
    `Foreign` description of whatever else it is. Never keeps a student's object."""
    if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
        return obj
    if type(obj) in (bool, int, float, str) or obj is None:
        return obj
    if type(obj) in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        return obj.item()
    if type(obj) in (tuple, list) and depth < 2 and len(obj) <= 16:
        return type(obj)(plain(x, depth + 1) for x in obj)
    kind = type(obj)
    name = f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")
    if isinstance(obj, np.ndarray):
        return Foreign(f"an ndarray subclass ({name})")
    return Foreign(name)


def fresh_inputs(case: dict) -> tuple[list, dict]:
    """A case's (args, kwargs) as new copies, with a new generator for every Seed."""
    arrays: dict = {}
    data = encode([case["args"], case["kwargs"]], arrays)
    return tuple(decode(data, {k: a.copy() for k, a in arrays.items()}, live=True))


def load_cases(path) -> list[dict]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return decode(json.loads(str(arrays.pop("__cases__"))), arrays)


# ---------------------------------------------------------------- the notebooks' visible checks

VISIBLE_CASES = Path(__file__).with_name("worked_example.npz")


def check(function_name: str, func) -> None:
    """The visible check of one exercise, on the chapter's worked example.

    Prints one line per passing case; raises `CheckFailed` naming the first
    wrong answer, or saying the exercise is not started. While nbgrader
    grades, the exercises `func` is built on are the reference's (BUILT_ON),
    as in every other grading path.
    """
    cases = _visible_cases(function_name)
    if not cases:
        raise KeyError(f"no visible checks for {function_name!r}")
    reference_of = _reference_while_grading()
    for case in cases:
        label = f"{function_name} on {case['label']}"
        with standing_in(function_name, func, reference_of):
            problem = verdict(label, outcome_of(func, case), case)
        if problem:
            raise CheckFailed(problem + _failing_foundations(function_name, func))
        print(f"✓ {label}")


def check_answer_form(name: str, namespace: dict, letters: str | None = None, hint: str = "") -> None:
    """The visible check of a "Check yourself" answer: its form only, never its value.

    letters: the answer must be one of them, a string in either case; else it
    must be a positive whole number, an int or a float such as 128.0 (`hint`
    says how to write one). Read as the grader reads it (`answer_as_given`)."""
    answer = namespace.get(name)
    if answer is None:
        raise CheckFailed(f"{name.lower()} is not answered yet: set {name} in the cell above and run it.")
    if letters:
        offered = ", ".join(repr(x) for x in letters)
        letter = answer_as_given(answer, "letter")
        if type(letter) is not str or letter not in letters or len(letter) != 1:
            raise CheckFailed(f"{name} must be one of {offered} (a string), got {answer!r}")
        print(f"✓ {name} is one of the letters offered")
    else:
        count = answer_as_given(answer, "count")
        if type(count) is not int or count < 1:
            raise CheckFailed(f"{name} must be a positive whole number ({hint}), got {answer!r}")
        print(f"✓ {name} is a positive whole number")


@cache
def _worked_example(path) -> tuple[dict, ...]:
    """Every visible case, read once per process (inputs are copied for each call)."""
    return tuple(load_cases(path))


def _visible_cases(function_name: str) -> list[dict]:
    return [c for c in _worked_example(VISIBLE_CASES) if c["func"] == function_name]


def _reference_while_grading():
    """The answer key's lookup (name → reference function) during `nbgrader autograde`
    on the instructor's machine, else None."""
    if os.environ.get("NBGRADER_EXECUTION") != "autograde":
        return None
    try:
        return importlib.import_module("autograder.answer_key").reference_of
    except ImportError:
        return None


def _failing_foundations(function_name: str, func) -> str:
    """A note naming the student's own functions that `func` calls and that fail their checks."""
    namespace = getattr(func, "__globals__", None) or {}
    failing = [dep for dep in BUILT_ON.get(function_name, ()) if callable(namespace.get(dep))
               and any(verdict(dep, outcome_of(namespace[dep], case), case) for case in _visible_cases(dep))]
    if not failing:
        return ""
    names = " and ".join(failing)
    return (f"\nNote: {function_name} calls your {names}, which fail{'s' if len(failing) == 1 else ''} "
            f"{'its' if len(failing) == 1 else 'their'} own check: fix {names} first. Grading runs "
            f"{function_name} with the reference's {names} in place of yours, so one mistake costs points once.")
