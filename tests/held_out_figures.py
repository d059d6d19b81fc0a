"""Named / missed / named wrongly on tests/corpus/held_out (in process, each file's function on its exercise's
visible and hidden cases, through policy.value_verdict): `python -m tests.held_out_figures`."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from autograder.cases import hidden_cases, visible_cases
from autograder.judge import fresh_inputs
from autograder.judge.policy import value_verdict

HELD_OUT = Path(__file__).resolve().parent / "corpus" / "held_out"


def names(path: Path) -> set[str]:
    exercise = path.name.split("__")[0]
    space: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), space)
    func, given = space[exercise], set()
    for case in [c for c in visible_cases() if c["func"] == exercise] + list(hidden_cases(exercise)):
        if "expected" not in case:
            continue
        args, kwargs = fresh_inputs(case)
        try:
            with np.errstate(all="ignore"):
                got = func(*args, **kwargs)
        except Exception:
            continue
        found = value_verdict(case["label"], got, case["expected"], case["variants"], reveal=False)
        if found and found.mistake:
            given.add(found.mistake)
    return given


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
