"""A student's submission: a folder of the assignment's notebooks.

`Submission.outcome(name, case)` says what the student's answer `name` gives
on a case, as `judge.call` reports it. The answers are loaded by running each
notebook's set-up and answer cells (never its checks or demonstrations).
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path

from autograder.judge import outcome_of, solution_namespace


class Submission:
    def __init__(self, folder):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no submission folder {self.folder}")

    @cached_property
    def notebook_of(self) -> dict[str, Path]:
        """Answer name (solution cell id) → the notebook that holds it."""
        where = {}
        for path in sorted(self.folder.glob("*.ipynb")):
            try:
                cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            except (ValueError, KeyError, UnicodeDecodeError):
                continue
            for cell in cells:
                meta = cell.get("metadata", {}).get("nbgrader", {})
                if meta.get("solution"):
                    where.setdefault(meta.get("grade_id"), path)
        return where

    @cached_property
    def _namespaces(self) -> dict:
        return {}

    def answer(self, name: str):
        """The student's object for answer `name` (a function or a value)."""
        path = self.notebook_of.get(name)
        if path is None:
            raise LookupError(f"no notebook in {self.folder} has an answer cell {name!r}")
        if path not in self._namespaces:
            self._namespaces[path] = solution_namespace(path)
        namespace = self._namespaces[path]
        variable = name.upper()
        return namespace.get(name, namespace.get(variable, namespace.get(f"{name}_output")))

    def outcome(self, name: str, case: dict) -> tuple:
        try:
            answer = self.answer(name)
        except LookupError as e:
            return "raised", "LookupError", str(e)
        if answer is None:
            return "not started", f"{name} is not answered yet"
        return outcome_of(answer, case)
