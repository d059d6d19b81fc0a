"""Named / missed / named wrongly on tests/shared/corpus/held_out (in process, each file's function on its exercise's
visible and hidden cells, named as the grader names them: autograder.grade.exercise_problems):
`python -m tests.judge.held_out_figures`."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from autograder.cases import visible_cases
from autograder.grade import exercise_problems
from autograder.judge import Outcome, fresh_inputs

HELD_OUT = Path(__file__).resolve().parents[1] / "shared" / "corpus" / "held_out"


def outcome_in_process(func, case: dict) -> Outcome:
    """What `func` gives on `case`, called here (no time limit, no input check: the held-out files are plain)."""
    args, kwargs = fresh_inputs(case)
    try:
        with np.errstate(all="ignore"):
            return Outcome.returned(func(*args, **kwargs))
    except Exception as error:
        return Outcome.raising(type(error).__name__, str(error))


def names(path: Path) -> set[str]:
    """The mistakes the file's visible and hidden cells are given."""
    exercise = path.name.split("__")[0]
    space: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), space)
    func = space[exercise]
    cells = exercise_problems(exercise, [f"check_{exercise}", f"hidden_{exercise}"], visible_cases(),
                              lambda case: outcome_in_process(func, case))
    return {found.mistake for found in cells.values() if found and found.mistake}


def main() -> None:
    named = missed = wrongly = 0
    for path in sorted(HELD_OUT.glob("*.py")):
        intended = (ast.get_docstring(ast.parse(path.read_text())) or "").removeprefix("Intended: ").rstrip(".")
        given = names(path)
        wrong = given - {intended}
        wrongly += bool(wrong)
        if intended != "none":
            named += intended in given
            missed += intended not in given
        print(f"{path.stem}: intended {intended!r}, named {sorted(given)}")
    print(f"held-out: {named} named, {missed} missed, {wrongly} named wrongly")


if __name__ == "__main__":
    main()
