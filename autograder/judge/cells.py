"""A notebook's answers, without its demonstrations: extracting and running its answer cells.

Set-up and answer cells run in order, with the definitions (imports,
functions, classes, assignments, scripts run with `%run`, and the try and if
blocks that hold nothing else) of the student's own cells; checks and
demonstrations are skipped. A cell that fails is
recorded, and the next runs.
"""

from __future__ import annotations

import ast
import json
import linecache
import warnings
from pathlib import Path

import numpy as np

from .calling import time_limit
from .exceptions import NotStarted
from .kernel_syntax import NoShell, as_python, display


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
    """The imports, functions, classes and assignments of a cell, and the scripts it runs (`%run`), at its top
    level or under ``if __name__ == "__main__":`` (true in Jupyter's kernel), with its blocks that hold nothing
    else (`try: import torch` / `except ImportError: torch = None`, an `if` choosing between two definitions);
    '' if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    tree.body = _kept_definitions(tree.body)
    return ast.unparse(tree)


def _kept_definitions(body: list[ast.stmt]) -> list[ast.stmt]:
    kept = []
    for node in body:
        if _is_definition(node):
            kept.append(node)
        elif _is_main_guard(node) and (inside := _kept_definitions(node.body)):
            kept.append(ast.If(test=node.test, body=inside, orelse=[]))
    return kept


def _is_definition(node: ast.stmt) -> bool:
    return isinstance(node, _DEFINITIONS) or _runs_a_script(node) or _block_of_definitions(node)


def _block_of_definitions(node: ast.stmt) -> bool:
    """A try or an if (not the main guard) whose every branch holds definitions alone (or `pass`)."""
    def only_definitions(body: list[ast.stmt]) -> bool:
        return all(isinstance(n, (*_DEFINITIONS, ast.Pass)) or _block_of_definitions(n) for n in body)

    if isinstance(node, ast.Try):
        return all(map(only_definitions, (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers))))
    return isinstance(node, ast.If) and not _is_main_guard(node) and only_definitions(node.body) and \
        only_definitions(node.orelse)


def _is_main_guard(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and \
        {ast.dump(test.left), ast.dump(test.comparators[0])} == {ast.dump(ast.Name("__name__", ast.Load())),
                                                                 ast.dump(ast.Constant("__main__"))}


def _runs_a_script(node: ast.stmt) -> bool:
    """`%run script.py` (as IPython's transformer writes it): a script's definitions, taken as an import's."""
    call = node.value if isinstance(node, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
        call.func.attr == "run_line_magic" and bool(call.args) and isinstance(call.args[0], ast.Constant) and \
        call.args[0].value == "run"


def left_out(source: str) -> list[ast.stmt]:
    """The top-level statements of a cell of the student's own that `_definitions` leaves out (a main guard's
    included), as parsed; [] if it does not parse (then nothing of it runs)."""
    try:
        body = ast.parse(source).body
    except Exception:  # a syntax error, a source nested too deeply to read
        return []

    def dropped(body: list[ast.stmt]):
        for node in body:
            if _is_main_guard(node):
                yield from dropped(node.body)
            elif not _is_definition(node):
                yield node
    return list(dropped(body))


def own_cells(cells) -> list[tuple[str, str]]:
    """(how a message names it, source as Python) of each cell of the student's own among a notebook's cells,
    named by its first line ("your cell that begins `TABLE = {}`"): the cells graded are not numbered as in the
    student's notebook (handed_in.py keeps what grading runs)."""
    return [(_named(_text(cell["source"])), as_python(_text(cell["source"]))) for cell in cells
            if _runs_when_loaded(cell) and "nbgrader" not in cell.get("metadata", {})]


def _named(source: str) -> str:
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return f"your cell that begins `{first if len(first) <= 40 else first[:39] + '…'}`"


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def bound_names(source: str) -> list[str]:
    """The names a cell's top-level statements bind, in order: functions, classes, imports, and assignments and
    loops to names (`def softmax`, `Softmax = ...`, `attention, softmax = ...`, `for i in ...`); [] if it does not
    parse."""
    try:
        body = ast.parse(source).body
    except Exception:  # a syntax error, a source nested too deeply to read
        return []
    names = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*"]
        else:
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            names += [name.id for target in targets if isinstance(target, ast.AST) for name in ast.walk(target)
                      if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)]
    return names


def answer_cells(path, cells=None) -> list[tuple[str, str]]:
    """(grade_id, source) of a notebook's set-up and answer cells, in order, and
    the definitions in cells of the student's own (labelled "your cell N", or
    "your cell N, below <answer>" where it comes after that answer's cell before
    any other code cell of the release: `below_an_answer`); each as Python, as
    Jupyter's kernel reads it (kernel_syntax.py: magics, shell escapes)."""
    if cells is None:
        with open(path, encoding="utf-8") as f:
            cells = json.load(f)["cells"]
    found, above = [], None  # above: the answer whose cell the student's cells now follow
    for number, cell in enumerate(cells, 1):
        metadata = cell.get("metadata", {})
        if cell.get("cell_type") == "code" and "nbgrader" in metadata:
            meta = metadata["nbgrader"]
            above = meta["grade_id"] if meta.get("solution", False) and _runs_when_loaded(cell) else None
        if not _runs_when_loaded(cell):
            continue
        source = as_python(_text(cell["source"]))
        if "nbgrader" in metadata:
            found.append((metadata["nbgrader"]["grade_id"], source))
        else:
            found.append((f"your cell {number}" + (f", below {above}" if above else ""), _definitions(source)))
    return found


def below_an_answer(grade_id: str) -> bool:
    """Whether answer_cells' label is of a cell of the student's own that comes right after an answer's cell (before
    its check): it runs with that answer, as the check in JupyterLab saw it."""
    return grade_id.startswith("your cell ") and ", below " in grade_id


def fresh_namespace() -> dict:
    """Where answer cells run: numpy as np, NotStarted, ``__cell_errors__`` (the cells that failed), and what
    Jupyter's kernel gives every cell: the name __main__ (an answer under ``if __name__ == "__main__":`` is
    defined, as in JupyterLab), `display`, and `get_ipython` for the calls that magics and shell escapes
    become (kernel_syntax.py)."""
    namespace = {"__name__": "__main__", "np": np, "NotStarted": NotStarted, "__cell_errors__": [],
                 "display": display}
    shell = NoShell(namespace)
    namespace["get_ipython"] = lambda: shell
    return namespace


def run_cells(cells, namespace: dict, start: int = 0, seconds_per_cell: float | None = None, until=None,
              where: str = "notebook") -> int:
    """Run cells[start:] in `namespace`; returns the index of the next cell to run.

    A cell that fails, runs past `seconds_per_cell` or calls sys.exit is
    recorded in ``namespace["__cell_errors__"]`` and the next cell still runs.
    until: stop after the first cell for which until(namespace) is true, and the
    student's own cells right below it (`below_an_answer`: a helper the answer
    calls, a corrected definition, as its check in JupyterLab saw them), so a
    later cell (one that ends the process, say) cannot spoil earlier answers.
    """
    if until is not None and until(namespace):
        return start
    for index in range(start, len(cells)):
        grade_id, source = cells[index]
        try:
            with warnings.catch_warnings(), time_limit(seconds_per_cell):
                warnings.simplefilter("ignore")
                filename = f"<{where}: {grade_id}>"
                linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # for messages
                exec(compile(source, filename, "exec"), namespace)
        except SystemExit as e:
            namespace["__cell_errors__"].append(f"{grade_id}: the cell called sys.exit({e.code!r}) and was stopped")
        except (Exception, KeyboardInterrupt) as e:
            namespace["__cell_errors__"].append(f"{grade_id}: {type(e).__name__}: {e}")
        if until is not None and until(namespace) and not (index + 1 < len(cells) and
                                                           below_an_answer(cells[index + 1][0])):
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
