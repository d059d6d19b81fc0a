"""Run a notebook top to bottom and read what its graded cells said.

A test helper (tests/notebooks/test_release.py runs the solved and released notebooks
with it): it judges a run the way nbgrader does, a graded cell with an error
or stderr output failed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import nbformat
from nbclient import NotebookClient

from kit.notebooks import ROOT


class CellResult(NamedTuple):
    grade_id: str
    points: float
    passed: bool
    message: str  # the error's last line, or what the cell printed


def execute(path: Path, *, with_graders: bool, timeout: int = 120) -> nbformat.NotebookNode:
    """Execute the notebook at `path` in its own folder; errors are kept in the outputs.

    with_graders: put this repository on the kernel's PYTHONPATH, as nbgrader's
    autograde does through nbgrader_config.py (the hidden checks need it).
    """
    nb = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if with_graders:
        env["PYTHONPATH"] = str(ROOT)
    env["MPLBACKEND"] = "Agg"
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    return nb


def _text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
        elif out.output_type == "stream":
            parts.append(out.text)
    return "".join(parts).strip()


def graded_results(nb: nbformat.NotebookNode) -> list[CellResult]:
    results = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade") or cell.cell_type != "code":
            continue
        failed = any(o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")
                     for o in cell.get("outputs", []))
        results.append(CellResult(meta["grade_id"], float(meta.get("points", 0)), not failed, _text(cell)))
    return results


def errors_outside_graded_cells(nb: nbformat.NotebookNode) -> list[str]:
    """Error or stderr outputs of cells that are not graded checks.

    An answer cell that stops at its own stub (`raise NotStarted()` where a
    value, not a function, is the answer) is not counted: that is the stub.
    """
    found = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade"):
            continue
        for out in cell.get("outputs", []):
            if meta.get("solution") and out.output_type == "error" and out.ename == "NotStarted":
                continue
            if out.output_type == "error" or (out.output_type == "stream" and out.name == "stderr"):
                found.append(f"cell {index}: {_text(cell)[:500]}")
    return found
