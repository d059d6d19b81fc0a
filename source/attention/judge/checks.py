"""The visible checks a student runs in the notebook, on the chapter's worked example.

`check` is the cell under every exercise; `check_answer_form` the cell under
a "Check yourself" answer (its form only, never its value). The cases are
``worked_example.npz``, beside the judge folder in the student's release.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
from functools import cache
from pathlib import Path

from .calling import outcome_of
from .case import Case
from .exceptions import CheckFailed
from .stand_ins import BUILT_ON, standing_in
from .policy import COUNT_IS_EXACT, is_count, is_number, shown
from .verdicts import answer_as_given, check_verdicts, labelled, verdict
from .wire import load_cases

VISIBLE_CASES = Path(__file__).parent.parent / "worked_example.npz"  # beside the judge folder

ANSWER_KEY = "KIT_ANSWER_KEY"  # the environment variable naming the module of `reference_of` while grading


def check(function_name: str, func) -> None:
    """The visible check of one exercise, on the chapter's worked example.

    Prints one line per passing case; raises `CheckFailed` naming the first
    wrong answer (and the known mistake the cases agree on, `Checking`), or
    saying the exercise is not started. While nbgrader grades, the exercises
    `func` is built on are the reference's (BUILT_ON), as in every other
    grading path.
    """
    cases = _visible_cases(function_name)
    if not cases:
        raise KeyError(f"no visible checks for {function_name!r}")
    reference_of = _reference_while_grading()
    note, called = "", set()

    def outcome_for(case):
        nonlocal called
        with standing_in(function_name, func, reference_of), _recording_calls(function_name, func) as called:
            return outcome_of(func, case)

    def on_case(label, outcome, problem, failed_before):
        nonlocal note
        if problem is None and not failed_before:
            print(f"✓ passed: {label}")
        elif problem is not None and not failed_before and not outcome.not_started:
            note = _failing_foundations(function_name, func, called)  # the first failure: are its foundations to blame?
    (problem,) = check_verdicts([(cases, labelled(function_name, cases), True)], outcome_for, on_case)
    if problem:
        raise CheckFailed(problem.message + note)


@contextlib.contextmanager
def _recording_calls(function_name: str, func):
    """Which of the exercises `func` is built on (BUILT_ON) it really calls while it runs: each is
    wrapped in its namespace for the call, and put back as it was afterwards."""
    called: set[str] = set()
    namespace = getattr(func, "__globals__", None)
    deps = [dep for dep in BUILT_ON.get(function_name, ())
            if isinstance(namespace, dict) and callable(namespace.get(dep))]
    own = {dep: namespace[dep] for dep in deps}

    def recorder(dep, inner):
        @functools.wraps(inner)
        def recorded(*args, **kwargs):
            called.add(dep)
            return inner(*args, **kwargs)
        return recorded
    try:
        namespace_update = {dep: recorder(dep, inner) for dep, inner in own.items()}
        if namespace_update:
            namespace.update(namespace_update)
        yield called
    finally:
        for dep, inner in own.items():
            namespace[dep] = inner


def check_answer_form(name: str, namespace: dict, letters: str | None = None) -> None:
    """The visible check of a "Check yourself" answer: its form only, never its value.

    letters: the answer must be one of them, a string in either case; else it
    must be a positive count, an exact integer (`policy.is_count`: a float such
    as 128.0 is refused here, as the grader refuses it). Read as the grader
    reads it (`answer_as_given`)."""
    answer = namespace.get(name)
    if answer is None:
        raise CheckFailed(f"{name.lower()} is not answered yet: set {name} in the cell above and run it.")
    if letters:
        offered = ", ".join(repr(x) for x in letters)
        letter = answer_as_given(answer, "letter")
        if type(letter) is not str or letter not in letters or len(letter) != 1:
            raise CheckFailed(f"{name} must be one of {offered} (a string), got {shown(answer)}")
        print(f"✓ passed: {name} is one of the letters offered")
    else:
        count = answer_as_given(answer, "count")
        if is_number(answer) and not is_count(answer):
            raise CheckFailed(f"{name} must be an exact whole number, an integer, got the float {shown(answer)}: "
                              f"{COUNT_IS_EXACT}")
        if type(count) is not int or count < 1:
            raise CheckFailed(f"{name} must be a positive whole number (an integer), got {shown(answer)}")
        print(f"✓ passed: {name} is a positive whole number")


@cache
def _worked_example(path) -> tuple[Case, ...]:
    """Every visible case, read once per process (inputs are copied for each call)."""
    return tuple(load_cases(path))


def _visible_cases(function_name: str) -> list[Case]:
    return [c for c in _worked_example(VISIBLE_CASES) if c["func"] == function_name]


def _reference_while_grading():
    """The answer key's lookup (name → reference function) during `nbgrader autograde` on the instructor's
    machine, from the module ANSWER_KEY names there (the kit's nbgrader configuration sets it), else None."""
    if os.environ.get("NBGRADER_EXECUTION") != "autograde" or not os.environ.get(ANSWER_KEY):
        return None
    try:
        return importlib.import_module(os.environ[ANSWER_KEY]).reference_of
    except ImportError:
        return None


def _failing_foundations(function_name: str, func, called=None) -> str:
    """A note naming the student's own functions that `func` called in the failing case
    (`called`; every one it is built on when None) and that fail their own checks."""
    namespace = getattr(func, "__globals__", None) or {}
    failing = [dep for dep in BUILT_ON.get(function_name, ()) if (called is None or dep in called)
               and callable(namespace.get(dep))
               and any(verdict(dep, outcome_of(namespace[dep], case), case) for case in _visible_cases(dep))]
    if not failing:
        return ""
    names = " and ".join(failing)
    return (f"\nNote: {function_name} calls your {names}, which fail{'s' if len(failing) == 1 else ''} "
            f"{'its' if len(failing) == 1 else 'their'} own check: fix {names} first. Grading runs "
            f"{function_name} with the reference's {names} in place of yours, so one mistake costs points once.")
