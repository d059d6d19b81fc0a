"""The code a similarity check compares: each student's answer cells, and what the course gave them.

From the instructor notebooks (source/): per exercise (an answer cell's
grade_id), the reference in every form a student might copy it from: the
notebook's cell without nbgrader's solution markers, and the module's function
(solutions/<assignment>.py) under the released signature with the module's
private helpers and constants it uses pasted in above it, as a student pasting
it would need them. And the given code, which is no evidence of copying: the
cell as the release hands it out (signature, docstring and stub; without a
release, the cell without its solution region), the notebook's read-only
set-up cells, and the release's hints (the code quoted in its text). From a
handed-in folder: the source of each answer cell, read as untrusted JSON
(autograder/handed_in.py), with what it imports from the student's own
modules in place of the import (imported.py); a notebook that cannot be
read gives nothing.
Nothing here runs code.
"""

from __future__ import annotations

import re
import ast
from dataclasses import dataclass, field
from pathlib import Path

from autograder.handed_in import answer_sources, read_notebook
from autograder.source_assignment import SourceAssignment
from autograder.student_modules import module_name, student_modules
from kit.report.imported import used_definitions, with_imports_resolved

_SOLUTION = re.compile(r"^[^\n]*### BEGIN SOLUTION.*?### END SOLUTION[^\n]*(?:\n|$)", re.DOTALL | re.M)
_MARKER = re.compile(r"^[^\n]*### (?:BEGIN|END) SOLUTION[^\n]*(?:\n|$)", re.M)


NOTEBOOK_FORM, MODULE_FORM = "the reference (notebook)", "the reference (module)"
_QUOTED = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Exercise:
    name: str
    notebook: str
    reference: str  # the instructor's answer, markers removed
    given: str      # the stub, the notebook's set-up code and the release's hints
    forms: dict[str, str] = field(default_factory=dict)  # every form of the reference: its name → its code


def _text(cell: dict) -> str | None:
    source = cell.get("source") if isinstance(cell, dict) else None
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _nbgrader(cell: dict) -> dict:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def exercises(source: Path, release: Path | None = None, module: Path | None = None) -> dict[str, Exercise]:
    """grade_id → the exercise's reference (in each form) and given code, for every answer cell of `source`'s
    notebooks. release: the assignment's release folder; module: the reference module (either may be
    missing)."""
    found = {}
    assignment = SourceAssignment.of(source)
    module_text = module.read_text(encoding="utf-8") if module is not None and module.is_file() else None
    for name in assignment.notebooks:
        cells = assignment.cells(name)
        released = _released(release / name) if release is not None else {}
        setup = "\n".join(_text(c) or "" for c in cells if str(_nbgrader(c).get("grade_id", "")).startswith("setup"))
        for cell in cells:
            meta, text = _nbgrader(cell), _text(cell)
            if meta.get("solution") and cell.get("cell_type") == "code" and text is not None:
                grade_id = meta["grade_id"]
                stub = released.get(grade_id, _SOLUTION.sub("", text))
                reference = _MARKER.sub("", text)
                forms = {NOTEBOOK_FORM: reference}
                if module_text is not None and (pasted := module_form(module_text, grade_id, stub)) is not None:
                    forms[MODULE_FORM] = pasted
                found[grade_id] = Exercise(grade_id, name, reference,
                                           "\n".join([stub, setup, *released.get("", [])]), forms)
    return found


def _released(notebook: Path) -> dict:
    """The release's answer cells (grade_id → the cell as handed out) and, under "", its hints: the code
    quoted in its text, a line each."""
    try:
        cells = read_notebook(notebook)["cells"]
    except (OSError, ValueError):
        return {}
    found: dict = {"": []}
    for cell in cells:
        text = _text(cell)
        if text is None:
            continue
        if _nbgrader(cell).get("solution") and cell.get("cell_type") == "code":
            found[_nbgrader(cell).get("grade_id")] = text
        elif cell.get("cell_type") == "markdown":
            found[""] += [quoted for quoted in _QUOTED.findall(text) if _parses(quoted)]
    return found


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def header(stub: str) -> str:
    """The cell as released without its stub: the signature and docstring an answer is written under."""
    return re.split(r"\n[ \t]*# YOUR CODE HERE", stub)[0].rstrip("\n")


def module_form(module: str, name: str, stub: str) -> str | None:
    """The function `name` of the reference module under the released signature and docstring (`stub`),
    with the module's private helpers (names starting with _) and constants it uses, and theirs, pasted in
    above it; None if the module has no such function."""
    tree = ast.parse(module)
    defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    constants = {target.id: node for node in tree.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)}
    if name not in defined:
        return None
    lines = module.split("\n")
    needed = used_definitions([defined[name]], lambda used: (defined.get(used) if used.startswith("_") else None)
                              or constants.get(used))
    function = defined[name]
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    own = "\n".join(lines[body[0].lineno - 1:function.end_lineno])
    pasted = ["\n".join(lines[node.lineno - 1:node.end_lineno]) for node in reversed(needed)]
    return "\n\n\n".join([*pasted, header(stub) + "\n" + own]) + "\n"


def handed_in(folder: Path, names: set[str], source: Path | None = None) -> dict[str, str]:
    """Exercise → the source of its answer cell, for the exercises in `names` a student's folder holds.
    source: the assignment's source folder; with it, of an answer cell the student duplicated, the copy
    graded (autograder/handed_in.py `answer_sources`), else the first; with what a cell imports from the
    modules the student handed in beside the notebooks in place of its import (imported.py): graded with it."""
    notebooks = SourceAssignment.of(source).notebooks if source is not None else {}
    found = {}
    for path in sorted(folder.glob("*.ipynb")):
        if path.is_symlink():  # never graded (kit/nbgrader_glue/plain_files.py): not the student's answer either
            continue
        try:
            student = read_notebook(path)
        except (OSError, ValueError):
            continue
        graded = answer_sources(student, notebooks[path.name]) if path.name in notebooks else {}
        for cell in student["cells"]:
            grade_id, text = _nbgrader(cell).get("grade_id"), _text(cell)
            if _nbgrader(cell).get("solution") and grade_id in names and text is not None:
                as_graded = _text({"source": graded.get(grade_id)})
                found.setdefault(grade_id, text if as_graded is None else as_graded)
    if source is not None:  # what an answer imports from the student's own modules was graded with it
        modules = {module_name(name): code.decode("utf-8", "replace")
                   for name, code in student_modules(folder, source).items()}
        found = {name: with_imports_resolved(code, modules) for name, code in found.items()}
    return found
