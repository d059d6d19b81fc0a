"""Turn an adversarial fixture into a submission folder.

Two kinds of fixture:

- a file in fixtures/: student code. Every top-level statement is kept where
  it stands: an answer (``def softmax``, ``def equal_scores``,
  ``SKIP_FORMULA = ...``) replaces that answer's cell in the solved notebooks,
  and any other statement (a patch, a loop, a helper) goes into the cell of
  the next answer in the file, or of the last one when none follows; a line
  ``__cell__ = "softmax"`` stands for that answer as solved (the statements
  before it go in front of the solved cell). The
  file's imports open every cell it fills. Write the answers in notebook order.
- a function below (`NOTEBOOK_EDITS`): an edit of the solved notebooks' JSON
  (a locked cell changed, a notebook swapped for another).

Each states its outcome in its docstring, ending with ``Loses: <names>.``: the
exercises (both their graded cells) or single graded cells that must score
zero; "nothing" for full marks.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import nbformat

from autograder.source_assignment import GradeId
from kit.notebooks import ROOT

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SOLVED = ROOT / "source" / "attention"


@dataclass(frozen=True)
class Fixture:
    name: str
    outcome: str                 # the docstring: what the fixture does and the outcome it must get
    loses: frozenset[str]        # exercises or graded cells that must score zero
    build: Callable[[Path], None]

    def lost_cells(self, graded: set[str]) -> set[str]:
        """The graded cells (of `graded`) that must score zero."""
        return {cell for cell in graded if cell in self.loses or GradeId.parse(cell).exercise in self.loses}


def loses(doc: str) -> frozenset[str]:
    """The names of a docstring's ``Loses: a, b.`` line."""
    line = next((ln for ln in doc.splitlines() if ln.startswith("Loses:")), None)
    if line is None:
        raise ValueError(f"no 'Loses:' line in {doc[:60]!r}")
    names = line.removeprefix("Loses:").strip().rstrip(".")
    return frozenset() if names == "nothing" else frozenset(n.strip() for n in names.split(","))


# ---------------------------------------------------------------- fixture files


def answer_cells(solved: Path = SOLVED) -> dict[str, str]:
    """Answer cell id → the notebook that holds it."""
    found = {}
    for path in sorted(solved.glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                found[meta["grade_id"]] = path.name
    return found


def _answers(node: ast.stmt, ids) -> str | None:
    """The answer cell a top-level statement defines, if it defines one."""
    if isinstance(node, ast.FunctionDef):
        for name in (node.name, node.name.removesuffix("_output")):
            if name in ids:
                return name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        if name.isupper() and name.lower() in ids:
            return name.lower()
    return None


def _solved_answer_named(node: ast.stmt, ids) -> str | None:
    """The answer a ``__cell__ = "<answer>"`` line names: the statements before it go in front of that
    answer's solved cell, left as the solved notebooks have it (so it stays right whatever its rules become)."""
    if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__cell__"] and \
            isinstance(node.value, ast.Constant) and node.value.value in ids:
        return node.value.value
    return None


def _solved_sources(solved: Path) -> dict[str, str]:
    """Answer cell id → its source in the solved notebooks."""
    return {cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
            for path in sorted(solved.glob("*.ipynb")) for cell in json.loads(path.read_text())["cells"]
            if cell["metadata"].get("nbgrader", {}).get("solution")}


def cells_of(fixture: Path, solved: Path = SOLVED) -> dict[str, str]:
    """Answer cell id → the source the fixture file puts there."""
    text = fixture.read_text()
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    ids = answer_cells(solved)
    imports = "".join(ast.get_source_segment(text, n) + "\n" for n in body
                      if isinstance(n, (ast.Import, ast.ImportFrom)))
    cells: dict[str, str] = {}
    pending, last, start = "", None, tree.body[0].end_lineno if body is not tree.body else 0
    for node in body:
        chunk = "".join(lines[start:node.end_lineno])  # with the comments above the statement
        start = node.end_lineno
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        solved_answer = _solved_answer_named(node, ids)
        answer = solved_answer or _answers(node, ids)
        if answer is None:
            pending += chunk
            continue
        if answer in cells:
            raise ValueError(f"{fixture.name} answers {answer} twice")
        chunk = _solved_sources(solved)[answer] if solved_answer else chunk
        cells[answer] = f"{imports}\n{pending}{chunk}".strip() + "\n"
        pending, last = "", answer
    if last is None:
        raise ValueError(f"{fixture.name} answers no exercise")
    if pending.strip():
        cells[last] += "\n" + pending.strip() + "\n"
    return cells


def make_submission(fixture: Path, folder: Path, base: Path = SOLVED) -> set[str]:
    """The solved notebooks of `base` in `folder`, with the fixture's cells put in; returns their ids."""
    cells = cells_of(fixture, base)
    splice(cells, folder, base)
    return set(cells)


def splice(cells: dict[str, str], folder: Path, base: Path = SOLVED) -> None:
    """The solved notebooks of `base` in `folder`, with `cells` (answer cell id → source) put in."""
    shutil.copytree(base, folder, dirs_exist_ok=True)
    answer(cells, folder)


def answer(cells: dict[str, str], folder: Path) -> None:
    """Put `cells` (answer cell id → source) into the notebooks of `folder`."""
    for notebook in sorted(folder.glob("*.ipynb")):
        nb = json.loads(notebook.read_text())
        for cell in nb["cells"]:
            gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if cell["metadata"].get("nbgrader", {}).get("solution") and gid in cells:
                cell["source"] = cells[gid]
        notebook.write_text(json.dumps(nb, indent=1, ensure_ascii=False))


# ---------------------------------------------------------------- notebook edits


def _edit(folder: Path, notebook: str, change: Callable[[dict], None]) -> None:
    path = folder / notebook
    nb = json.loads(path.read_text())
    change(nb)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False))


def _cell(nb: dict, grade_id: str) -> dict:
    return next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def _without(nb: dict, grade_id: str) -> None:
    nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != grade_id]


def _as_markdown(cell: dict) -> None:
    """Retype a code cell as markdown, as JupyterLab's cell-type menu does."""
    cell["cell_type"] = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)


SOFTMAX_NB, RAW_NB, HEADS_NB, MASKS_NB = ("03_softmax_and_mix.ipynb", "02_scores_and_scaling.ipynb",
                                           "04_heads.ipynb", "05_masks_and_cross_attention.ipynb")


def edits_a_locked_cell(folder: Path) -> None:
    """Turns check_softmax into a print of a tick and hidden_softmax into `pass`.

    Outcome: both cells restored from source/ and graded as if untouched
    (full marks on this correct submission); the tampering report names both.
    Loses: nothing.
    """
    def change(nb):
        _cell(nb, "check_softmax")["source"] = 'print("✓ softmax on the worked example")\n'
        _cell(nb, "hidden_softmax")["source"] = "pass\n"
    _edit(folder, SOFTMAX_NB, change)


def deletes_a_locked_cell(folder: Path) -> None:
    """Deletes hidden_attention.

    Outcome: restored and graded (full marks); the report names the deletion.
    Loses: nothing.
    """
    _edit(folder, SOFTMAX_NB, lambda nb: _without(nb, "hidden_attention"))


def retypes_a_locked_cell(folder: Path) -> None:
    """Turns check_raw_scores into a markdown cell, so nbgrader would not run it.

    Outcome: restored and graded (full marks); the report names the retyping.
    Loses: nothing.
    """
    _edit(folder, RAW_NB, lambda nb: _as_markdown(_cell(nb, "check_raw_scores")))


def duplicates_a_locked_cell(folder: Path) -> None:
    """Puts an emptied copy of check_causal_mask before the real one.

    Outcome: restored and graded (full marks); the report names the duplicate.
    Loses: nothing.
    """
    def change(nb):
        original = _cell(nb, "check_causal_mask")
        duplicate = {**copy.deepcopy(original), "source": "pass\n"}
        nb["cells"].insert(nb["cells"].index(original), duplicate)
    _edit(folder, MASKS_NB, change)


def edits_locked_metadata(folder: Path) -> None:
    """Gives hidden_softmax 300 points and makes check_attention an ungraded, unlocked cell.

    Outcome: the source's metadata restored, graded as if untouched (full
    marks, 3 and 1 points); the report names both cells.
    Loses: nothing.
    """
    def change(nb):
        _cell(nb, "hidden_softmax")["metadata"]["nbgrader"]["points"] = 300
        _cell(nb, "check_attention")["metadata"]["nbgrader"].update(grade=False, locked=False)
    _edit(folder, SOFTMAX_NB, change)


def edits_answer_metadata(folder: Path) -> None:
    """Makes its softmax answer cell a locked graded cell worth 100 points.

    Outcome: graded as if untouched (full marks); the report names the cell.
    Loses: nothing.
    """
    def change(nb):
        _cell(nb, "softmax")["metadata"]["nbgrader"].update(grade=True, locked=True, points=100)
    _edit(folder, SOFTMAX_NB, change)


def _with_checksums(nb: dict, change: Callable[[dict], None]) -> None:
    """Give every nbgrader cell the checksum nbgrader's release gives it, then apply `change` to the cells."""
    from nbgrader.utils import compute_checksum  # here: importing nbgrader takes seconds

    node = nbformat.reads(json.dumps(nb), as_version=4)  # sources as strings, as nbgrader hashes them
    for cell in node.cells:
        if "nbgrader" in cell.metadata:
            cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
    change({c.metadata.nbgrader.grade_id: c for c in node.cells if "nbgrader" in c.metadata})
    nb.clear()
    nb.update(json.loads(nbformat.writes(node)))


def forges_a_checksum(folder: Path) -> None:
    """Carries nbgrader's checksums (as the release does), empties
    check_merge_heads and recomputes its checksum to hide the edit.

    Outcome: restored and graded (full marks); the report names the edit.
    Loses: nothing.
    """
    def change(cells):
        from nbgrader.utils import compute_checksum

        cells["check_merge_heads"].source = "pass\n"
        cells["check_merge_heads"].metadata.nbgrader["checksum"] = compute_checksum(cells["check_merge_heads"])
    _edit(folder, HEADS_NB, lambda nb: _with_checksums(nb, change))


def changes_a_checksum(folder: Path) -> None:
    """Carries nbgrader's checksums (as the release does) and changes the
    checksum of hidden_merge_heads alone.

    Outcome: graded as if untouched (full marks); the report names the cell.
    Loses: nothing.
    """
    def change(cells):
        cells["hidden_merge_heads"].metadata.nbgrader["checksum"] = "0" * 32
    _edit(folder, HEADS_NB, lambda nb: _with_checksums(nb, change))


def deletes_an_answer_cell(folder: Path) -> None:
    """Deletes its softmax answer cell.

    Outcome: softmax is not answered, so it scores zero; attention, which
    calls softmax, is graded with the reference's softmax and keeps its points.
    Loses: softmax.
    """
    _edit(folder, SOFTMAX_NB, lambda nb: _without(nb, "softmax"))


def retypes_an_answer_cell(folder: Path) -> None:
    """Turns its causal_mask answer cell into markdown.

    Outcome: causal_mask is not answered: zero on it.
    Loses: causal_mask.
    """
    _edit(folder, MASKS_NB, lambda nb: _as_markdown(_cell(nb, "causal_mask")))


def renames_one_exercise(folder: Path) -> None:
    """Renames the cell id of its padding_mask answer to padding_mask_v2 (the other answers keep theirs).

    Outcome: padding_mask is not answered under its own name: zero on it.
    Loses: padding_mask.
    """
    _edit(folder, MASKS_NB, lambda nb: _cell(nb, "padding_mask")["metadata"]["nbgrader"].update(
        grade_id="padding_mask_v2"))


def gives_cells_ids_that_are_not_text(folder: Path) -> None:
    """Gives its softmax answer cell the grade id 12, check_attention the grade id ["check_attention"] and
    hidden_lead_share none at all (null).

    A grader that takes every grade id for text stops on them.
    Outcome: the locked cells restored from source and graded (the report
    names both); softmax is not answered under its own name: zero on it.
    Loses: softmax.
    """
    def change(nb):
        _cell(nb, "softmax")["metadata"]["nbgrader"]["grade_id"] = 12
        _cell(nb, "check_attention")["metadata"]["nbgrader"]["grade_id"] = ["check_attention"]
        _cell(nb, "hidden_lead_share")["metadata"]["nbgrader"]["grade_id"] = None
    _edit(folder, SOFTMAX_NB, change)


def _other_assignment() -> dict:
    nb = nbformat.v4.new_notebook()
    meta = lambda gid, **kw: {"nbgrader": {"grade_id": gid, "schema_version": 3, "task": False, **kw}}  # noqa: E731
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Problem set 1: squares"),
        nbformat.v4.new_code_cell("def squares(n):\n    return [i * i for i in range(1, n + 1)]\n",
                                  metadata=meta("squares", solution=True, grade=False, locked=False)),
        nbformat.v4.new_code_cell("assert squares(3) == [1, 4, 9]\n",
                                  metadata=meta("correct_squares", solution=False, grade=True, locked=True, points=1)),
    ]
    return json.loads(nbformat.writes(nb))


def hands_in_another_assignment(folder: Path) -> None:
    """Hands in problem set 1 of another course as 03_softmax_and_mix.ipynb.

    Outcome: a "wrong notebook" problem for that notebook; softmax and
    attention score zero; everything else is graded, multi_head_attention
    with the reference's attention in place of the missing one.
    Loses: softmax, lead_share, attention, permutation_gaps, reach, layer_counts.
    """
    (folder / SOFTMAX_NB).write_text(json.dumps(_other_assignment(), indent=1))


def hands_in_a_plain_notebook(folder: Path) -> None:
    """Hands in a notebook without nbgrader cells as 07_cost.ipynb.

    Outcome: a "wrong notebook" problem for that notebook; its exercises zero.
    Loses: projection_flops, score_flops, attention_share, crossover_length, mlp_flops, grid_over_mlp, score_grid_bytes, attention_params.
    """
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("def score_flops(n, d):\n    return 2 * n * n * d\n")]
    (folder / "07_cost.ipynb").write_text(nbformat.writes(nb))


def renames_every_exercise(folder: Path) -> None:
    """Renames the cell ids of every answer of 05_masks_and_cross_attention (causal_mask → my_causal_mask, ...).

    Outcome: a "wrong notebook" problem naming the renamed exercises; those
    exercises zero, everything else graded.
    Loses: causal_mask, first_changed_output, padding_mask, padding_leak, block_mask, source_shares.
    """
    def change(nb):
        for name in ("causal_mask", "first_changed_output", "padding_mask", "padding_leak", "block_mask",
                     "source_shares"):
            _cell(nb, name)["metadata"]["nbgrader"]["grade_id"] = f"my_{name}"
    _edit(folder, MASKS_NB, change)


def _without_markers(source: str) -> str:
    return "".join(line for line in source.splitlines(keepends=True) if "### BEGIN SOLUTION" not in line
                   and "### END SOLUTION" not in line)


def keeps_an_answer_in_a_module_of_its_own(folder: Path) -> None:
    """Hands in my_attention.py beside its notebooks, holding softmax, and answers softmax's cell with
    `from my_attention import softmax`, as JupyterLab lets a notebook import a module from its folder; and a
    package of its own, helpers/ (an __init__.py and a subpackage, maths/, holding reach), answering reach's
    cell with `from helpers.maths.measures import reach`.

    Outcome: the module and the package are importable while the notebooks are graded, as in JupyterLab and
    stock nbgrader (full marks).
    Loses: nothing.
    """
    (folder / "my_attention.py").write_text("import numpy as np\n\n\n" + _without_markers(
        _solved_sources(SOLVED)["softmax"]))
    (folder / "helpers" / "maths").mkdir(parents=True)
    (folder / "helpers" / "__init__.py").write_text('"""My helpers."""\n')
    (folder / "helpers" / "maths" / "__init__.py").write_text("")
    (folder / "helpers" / "maths" / "measures.py").write_text("import numpy as np\n\n\n" + _without_markers(
        _solved_sources(SOLVED)["reach"]))
    answer({"softmax": "from my_attention import softmax\n", "reach": "from helpers.maths.measures import reach\n"},
           folder)


def hands_in_a_module_named_numpy(folder: Path) -> None:
    """Hands in numpy.py beside its notebooks: imported as numpy, it loads NumPy itself and fills a buffer
    large enough for a 4,096 × 4,096 grid; blockwise_attention builds its whole grid in that buffer when it
    finds it, and fills one of its own as notebook 06 loads when not.

    Outcome: a module of the student's by the name of one Python already has is not copied (the grading child
    imports NumPy itself before any student code runs and before its memory is marked: the buffer would go
    uncounted), so the buffer is the notebook's and counts: zero on blockwise_attention, with a message about
    memory; every other exercise graded (full marks).
    Loses: blockwise_attention.
    """
    (folder / "numpy.py").write_text(
        "import importlib, os, sys\n\n"
        "_here = [p for p in sys.path if os.path.abspath(p or '.') == os.path.dirname(os.path.abspath(__file__))]\n"
        "for p in _here:\n    sys.path.remove(p)\n"
        "del sys.modules['numpy']\n"
        "_numpy = importlib.import_module('numpy')\n"
        "sys.path[:0] = _here\n"
        "_numpy.EARLY_BUFFER = _numpy.ones(4096 * 4096 + 1)\n"
        "sys.modules['numpy'] = _numpy\n")
    early = cells_of(FIXTURES / "builds_the_grid_in_an_early_buffer.py")["blockwise_attention"]
    found = 'getattr(np, "EARLY_BUFFER", None)\nif _BUFFER is None:\n    _BUFFER = np.ones(4096 * 4096 + 1)'
    answer({"blockwise_attention": early.replace("np.ones(4096 * 4096 + 1)", found)}, folder)


NOTEBOOK_EDITS = (edits_a_locked_cell, deletes_a_locked_cell, retypes_a_locked_cell, duplicates_a_locked_cell,
                  edits_locked_metadata, edits_answer_metadata, forges_a_checksum, changes_a_checksum,
                  deletes_an_answer_cell, retypes_an_answer_cell, renames_one_exercise,
                  hands_in_another_assignment, hands_in_a_plain_notebook, renames_every_exercise,
                  gives_cells_ids_that_are_not_text, keeps_an_answer_in_a_module_of_its_own,
                  hands_in_a_module_named_numpy)


def _edited(edit: Callable[[Path], None], folder: Path, base: Path = SOLVED) -> None:
    shutil.copytree(base, folder, dirs_exist_ok=True)
    edit(folder)


def _docstring(text: str) -> str:
    return re.sub(r"\n\s+", "\n", text).strip()


def fixtures() -> dict[str, Fixture]:
    """Every adversarial fixture by name: the files, then the notebook edits."""
    found = {}
    for path in sorted(FIXTURES.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        found[path.stem] = Fixture(path.stem, doc, loses(doc), partial(make_submission, path))
    for edit in NOTEBOOK_EDITS:
        doc = _docstring(edit.__doc__)
        found[edit.__name__] = Fixture(edit.__name__, doc, loses(doc), partial(_edited, edit))
    return found
