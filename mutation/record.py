"""What one exercise's mutants gave, and the fingerprint of everything they were made and graded from.

`run(exercise)` grades every mutant (mutants.py, grading.py) and sorts it:
killed by the visible check, killed by the hidden cases (a mutant can be
both), equivalent (reviewed.py) or survived. results.json keeps one
`record` per exercise with its `fingerprint`: the code mutated, the cases
(inputs, expected values, mistakes' outputs), the reviewed lines that apply.
An exercise whose fingerprint is not the recorded one was touched by a
change since `make mutants` last ran. `engine()` fingerprints what grades
every exercise alike (the judge, the grading of a cell, this package, the
operators' library): when it changes, every exercise is graded again.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
from importlib.metadata import version
from pathlib import Path

import numpy as np

from autograder.cases import hidden_cases, visible_cases_of
from autograder.exercises import REGISTRY
from autograder.judge import Seed
from mutation import reviewed
from mutation.grading import grade
from mutation.mutants import changed_functions, mutants_of

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).with_name("results.json")
ENGINE = [ROOT / "autograder" / "grade.py", *sorted((ROOT / "autograder" / "judge").glob("*.py")),
          *(p for p in sorted(Path(__file__).parent.glob("*.py")) if p.name not in ("__main__.py", "report.py"))]


def _digest(value, h) -> None:
    """Feed `value` (a case: dicts, sequences, arrays, numbers, strings) to the hash `h`, the same way every run."""
    if isinstance(value, np.ndarray):
        h.update(f"array {value.dtype.str} {value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            h.update(f"key {key}".encode())
            _digest(value[key], h)
    elif isinstance(value, (list, tuple)):
        h.update(f"{type(value).__name__} {len(value)}".encode())
        for item in value:
            _digest(item, h)
    else:
        h.update(f"{type(value).__name__} {'seed ' if isinstance(value, Seed) else ''}{value!r}".encode())


def engine() -> str:
    """The code that grades every exercise alike, as Python reads it: a comment or a docstring changes nothing."""
    h = hashlib.sha256(f"cosmic-ray {version('cosmic-ray')}".encode())
    for path in ENGINE:
        h.update(ast.dump(_without_docstrings(ast.parse(path.read_text()))).encode())
    return h.hexdigest()[:16]


def _without_docstrings(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return tree


def fingerprint(exercise: str) -> str:
    h = hashlib.sha256(exercise.encode())
    functions = changed_functions(exercise) if callable(REGISTRY[exercise].reference) else []
    for f in functions:
        h.update(inspect.getsource(f).encode())
    _digest([list(visible_cases_of(exercise)), list(hidden_cases(exercise))], h)
    for line in reviewed.lines_for(exercise, {f.__name__ for f in functions}):
        h.update(line.encode())
    return h.hexdigest()[:16]


def run(exercise: str) -> dict:
    """Every mutant of `exercise` graded: the counts, the survivors' keys, the mistakes named, and the
    mutants on which grading itself failed (the judge raised: neither killed nor survived)."""
    counts = {"mutants": 0, "killed by visible": 0, "killed by hidden": 0, "equivalent": 0, "survived": 0}
    survivors, equivalent, named, judge_errors = [], [], {}, {}
    for mutant in mutants_of(exercise):
        counts["mutants"] += 1
        try:
            grades = grade(exercise, mutant.answer())
        except Exception as e:  # the grader's own failure, never a kill: listed apart
            judge_errors[mutant.key] = f"{type(e).__name__}: {e}"
            continue
        counts["killed by visible"] += grades.visible is not None
        counts["killed by hidden"] += not grades.survived
        mistake = (grades.hidden and grades.hidden.mistake) or (grades.visible and grades.visible.mistake)
        if mistake:
            named[mutant.key] = mistake
        if grades.survived:
            why = reviewed.why_equivalent(exercise, mutant.key)
            counts["equivalent" if why else "survived"] += 1
            (equivalent if why else survivors).append(mutant.key)
    return {"fingerprint": fingerprint(exercise), **counts, "judge errors": judge_errors, "survivors": survivors,
            "equivalent keys": equivalent, "named": named}


def load(path: Path = RESULTS) -> dict:
    """{"engine": ..., "exercises": {name: record}} as last written, or empty."""
    return json.loads(path.read_text()) if path.exists() else {"engine": "", "exercises": {}}


def save(results: dict, path: Path = RESULTS) -> None:
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


def touched(results: dict) -> list[str]:
    """The exercises whose mutants must be graded again: all when the engine changed, else those whose
    fingerprint is not the recorded one (or never recorded), in notebook order."""
    recorded = results["exercises"] if results.get("engine") == engine() else {}
    return [name for name in REGISTRY if recorded.get(name, {}).get("fingerprint") != fingerprint(name)]
