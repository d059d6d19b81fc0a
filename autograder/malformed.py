"""Where a notebook is not shaped as Jupyter writes one, named so that a student can find it.

nbformat's reader fails on such a notebook with an error of its own code ("TypeError: sequence item 0:
expected str instance, int found"), naming neither the cell nor what is wrong in it. A notebook so shaped
was edited as text or written by a program. Once the reader has failed, `malformed` asks nbformat's own
schema (the one JupyterLab's notebooks meet) where the notebook first departs from it, and says so by cell
and key; the values themselves are never quoted (a cell can be megabytes). `unshaped_cell` finds, before any
reader runs, a cell that nbgrader or the grader would fail the student's whole hand-in on.
"""

from __future__ import annotations


def _source_text(cell) -> str | None:
    """A cell's source as text (a string, or a list of lines joined); None when it is neither."""
    source = cell.get("source", "") if isinstance(cell, dict) else None
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def cell_named(cells: list, number: int) -> str:
    """"cell 4 (the one that begins 'def softmax(x):')": cell `number` (from 1) of `cells`, by its first line."""
    text = _source_text(cells[number - 1]) or ""  # not text: no first line to show
    line = next(iter(text.strip().splitlines()), "").encode("utf-8", "replace").decode("utf-8")[:60]
    return f"cell {number}" + (f" (the one that begins {line!r})" if line else "")


AGAIN = ("(a notebook edited as text or written by a program can be so): open the copy you worked in with "
         "JupyterLab, save it, and hand in again")  # what a student does about either


def unshaped_cell(cells: list) -> str | None:
    """The first of `cells` that is not a cell as every reader of notebooks needs one (a mapping with a kind, and
    a source that is text or a list of lines), in words; None if each is. nbgrader fails the student's whole
    hand-in on a cell without a kind; the grader, on a source it cannot join."""
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            return f"cell {number} is not a cell"
        if not isinstance(cell.get("cell_type"), str):
            return f"{cell_named(cells, number)} does not say what kind of cell it is (its cell_type)"
        if _source_text(cell) is None:
            return f"{cell_named(cells, number)}: its source is not text"
    return None


def malformed(nb: dict) -> str | None:
    """Where `nb` (a notebook's JSON, a dict with a list of cells) first departs from nbformat's schema of
    version 4, in words ("cell 4 (the one that begins ...), at its outputs → item 1 → text: ..."); None if
    nowhere."""
    from nbformat import validator  # only here: grading itself reads notebooks without it

    try:
        error = next(iter(validator.iter_validate(nb, version=4, version_minor=nb.get("nbformat_minor", 5)
                                                  if isinstance(nb.get("nbformat_minor"), int) else 5)), None)
    except Exception:  # the schema's own checker failed on it: nothing more to say than nbformat did
        return None
    if error is None:
        return None
    path = list(getattr(error, "absolute_path", error.path))
    if len(path) >= 2 and path[0] == "cells" and isinstance(path[1], int):
        where, rest = cell_named(nb["cells"], path[1] + 1), path[2:]
    else:
        where, rest = "the notebook", path
    at = f", at its {' → '.join(f'item {part + 1}' if isinstance(part, int) else str(part) for part in rest)}" \
        if rest else ""
    what = error.message if error.validator == "required" else "not what Jupyter writes there"
    return f"{where}{at}: {what}"
