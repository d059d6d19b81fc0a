"""Write the example class: `python -m examples.make_class`.

Eight students in nbgrader's layout (examples/class/submitted/<id>/attention/
with a timestamp.txt) and a roster, each built from the student release the
way a student would fill it in: answers typed into the answer cells, and
prose into the written answers' cells (examples/written_answers.py: full
answers, or partial ones for the two students who made a known mistake).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from autograder.handed_in import answer_cell_id
from examples.written_answers import ANSWERS
from kit.notebooks import ROOT
from tests.shared.corpus_submissions import CORPUS, cells_of

CLASS = ROOT / "examples" / "class"
RELEASE = ROOT / "assignments" / "attention"
SOURCE = ROOT / "source" / "attention"
ON_TIME = "2026-12-14 12:00:00.000000 UTC"
LATE = "2026-12-16 05:59:00.000000 UTC"  # 30 hours after the deadline in course.toml

# id, first name, last name, what the student did (shown in README), how it was built
STUDENTS = [
    ("ada", "Ada", "Perfect", "every answer right", {}),
    ("bo", "Bo", "Axis", "softmax over the wrong axis, partial written answers",
     {"mistake": "softmax__wrong_axis", "written": "partial"}),
    ("cy", "Cy", "Diagonal", "causal mask forbids the diagonal, partial written answers",
     {"mistake": "causal_mask__diagonal_forbidden", "written": "partial"}),
    ("dee", "Dee", "Untouched", "handed in the release untouched", {"untouched": True}),
    ("eli", "Eli", "Halfway", "notebooks 01 to 04 done, the rest untouched", {"done_up_to": "04"}),
    ("fay", "Fay", "Late", "every answer right, 30 hours late", {"timestamp": LATE}),
    ("gus", "Gus", "Broken", "notebook 03 is not valid JSON", {"break": "03_softmax_and_mix.ipynb"}),
    ("hal", "Hal", "Tamper", "edited and deleted locked test cells in 03", {"tamper": "03_softmax_and_mix.ipynb"}),
]


def _answers() -> dict[str, str]:
    """Answer cell id → the reference answer as a student would type it (no markers)."""
    answers = {}
    for path in SOURCE.glob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                text = "".join(cell["source"])
                lines = [line for line in text.splitlines() if "### BEGIN SOLUTION" not in line
                         and "### END SOLUTION" not in line]
                answers[meta["grade_id"]] = "\n".join(lines)
    return answers


def _written(kind: str) -> dict[str, str]:
    """Answer cell id → what the student writes there, for answers of `kind` (examples/written_answers.py)."""
    return {answer_cell_id(question): text for question, text in ANSWERS[kind].items()}


def _fill(notebook: dict, answers: dict[str, str]) -> dict:
    for cell in notebook["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if cell["metadata"].get("nbgrader", {}).get("solution") and gid in answers:
            cell["source"] = answers[gid]
        elif cell["cell_type"] == "markdown" and cell.get("id") in answers:
            cell["source"] = answers[cell["id"]]
    return notebook


def _tamper(notebook: dict) -> dict:
    cells = []
    for cell in notebook["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid == "hidden_attention":
            continue  # deleted
        if gid == "check_softmax":
            cell = {**cell, "source": 'print("All tests passed")'}
        cells.append(cell)
    return {**notebook, "cells": cells}


def build(target: Path = CLASS) -> Path:
    if target.exists():
        shutil.rmtree(target)
    reference = _answers()
    for student, first, last, _, how in STUDENTS:
        folder = target / "submitted" / student / "attention"
        folder.mkdir(parents=True)
        answers = {} if how.get("untouched") else {**reference, **_written(how.get("written", "full"))}
        if "mistake" in how:
            answers.update(cells_of(CORPUS / "mistakes" / f"{how['mistake']}.py"))
        for path in sorted(RELEASE.glob("*.ipynb")):
            done = "done_up_to" not in how or path.name[:2] <= how["done_up_to"]
            notebook = _fill(json.loads(path.read_text()), answers if done else {})
            if how.get("tamper") == path.name:
                notebook = _tamper(notebook)
            text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
            if how.get("break") == path.name:
                text = text[: len(text) // 2]  # a save cut short
            (folder / path.name).write_text(text)
        (folder / "timestamp.txt").write_text(how.get("timestamp", ON_TIME))
    with open(target / "roster.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "first_name", "last_name", "email"])
        for student, first, last, _, _ in STUDENTS:
            writer.writerow([student, first, last, f"{student}@example.edu"])
    return target


if __name__ == "__main__":
    print("example class written to", build().relative_to(ROOT))
