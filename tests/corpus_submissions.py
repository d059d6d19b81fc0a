"""Turn a corpus file of student code into a submission folder.

A corpus file (tests/corpus/*/*.py) defines some exercise functions. The
submission is the solved instructor notebooks with each of those functions'
answer cells replaced by the file's imports and that function's code.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

from kit.notebooks import ROOT

CORPUS = Path(__file__).resolve().parent / "corpus"
SOLVED = ROOT / "source" / "attention"


def functions_in(path: Path) -> dict[str, str]:
    """Function name → its source, each preceded by the file's imports."""
    text = path.read_text()
    tree = ast.parse(text)
    imports = "\n".join(ast.get_source_segment(text, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    return {n.name: f"{imports}\n\n\n{ast.get_source_segment(text, n)}\n"
            for n in tree.body if isinstance(n, ast.FunctionDef)}


def make_submission(corpus_file: Path, folder: Path, solved: Path = SOLVED) -> set[str]:
    """Write the submission into `folder`; returns the names it replaced."""
    shutil.copytree(solved, folder, dirs_exist_ok=True)
    replacements = functions_in(corpus_file)
    replaced = set()
    for notebook in folder.glob("*.ipynb"):
        nb = json.loads(notebook.read_text())
        for cell in nb["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if cell["metadata"].get("nbgrader", {}).get("solution") and grade_id in replacements:
                cell["source"] = replacements[grade_id]
                replaced.add(grade_id)
        notebook.write_text(json.dumps(nb, indent=1))
    missing = set(replacements) - replaced
    if missing:
        raise LookupError(f"{corpus_file.name} defines {sorted(missing)}, which no notebook asks for")
    return replaced


def mistake_name(corpus_file: Path) -> str:
    """The mistake a corpus file makes, from its docstring 'Mistake: <name>.'"""
    doc = ast.get_docstring(ast.parse(corpus_file.read_text())) or ""
    return doc.removeprefix("Mistake: ").rstrip(".")
