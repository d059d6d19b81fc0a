"""What the notebooks tell the student about each exercise: its part of the text, split into sentences, and
its function's docstring (the stub keeps it), split into statements.

An exercise's part runs from its ``### Exercise`` heading to its solution cell
(three functions share one heading in notebook 09); a notebook's introduction
is its first markdown cell. Read from the percent scripts (notebooks/), the
text the release is built from.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from kit.notebooks import ROOT, _cells, _markdown

SCRIPTS = ROOT / "notebooks" / "attention"
HEADING = re.compile(r"^### (?:Exercise|Question) ", re.M)
# Words that mark a sentence as stating a behaviour (an edge, an error, a dtype, a rule), not explaining.
# How to compute ("no loop") is advice no value can show: the grader's time limits bound it, no case checks it.
STATES_A_BEHAVIOUR = re.compile(
    r"ValueError|float32|float64|dtype|integer|\bint\b|\bnever\b|\bmust\b|\bties?\b|\bwhen\b|\bif\b|\bno row\b"
    r"|do(?:es)? not count|\bstays?\b|\bkeep\b|exactly|\bcopy\b|\bany\b|\bat least\b|unchanged|\bPython\b"
    r"|\binverse\b|\border\b|\bwhole\b|\bmay differ\b|\(\.\.\., ", re.I)


def flat(text: str) -> str:
    """The text with every run of whitespace one space (a quote may break over lines)."""
    return " ".join(text.split())


@cache
def parts(script: Path) -> tuple[str, dict[str, str]]:
    """(the notebook's introduction, exercise name → its part of the text) of one percent script."""
    introduction, found, current = None, {}, None
    for cell_type, kind, options, source in _cells(script.read_text()):
        if cell_type == "markdown":
            text = _markdown(source)
            introduction = text if introduction is None else introduction
            heading = HEADING.search(text)
            if heading:
                current = [text[heading.start():]]
            elif current is not None:
                current.append(text)
        elif kind == "solution" and current is not None:
            found[options["id"]] = "\n\n".join(current)
    return introduction or "", found


def exercise_text(notebook: str, name: str) -> str:
    """The part of `notebook`'s text that asks for exercise `name`."""
    return parts(SCRIPTS / f"{notebook}.py")[1][name]


def notebook_text(notebook: str) -> str:
    """Every markdown cell of `notebook`, flattened (`flat`)."""
    return flat("\n".join(_markdown(source) for cell_type, _, _, source in _cells((SCRIPTS / f"{notebook}.py").read_text())
                         if cell_type == "markdown"))


def introduction(notebook: str) -> str:
    return parts(SCRIPTS / f"{notebook}.py")[0]


def sentences(text: str) -> list[str]:
    """The sentences of markdown text, each on one line (headings left out; a bullet or list item is one)."""
    text = re.sub(r"^#+ .*$", "", text, flags=re.M)
    found = []
    for block in re.split(r"\n\s*[*-] |\n\s*\d+\. |\n\s*\n", text):
        found += [s for s in re.split(r"(?<=[.!?:])\s+(?=[A-Z`*(\"])", flat(block)) if s]
    return found


def behaviour_sentences(text: str) -> list[str]:
    """The sentences of `text` that state a behaviour."""
    return [s for s in sentences(text) if STATES_A_BEHAVIOUR.search(s)]


# ---------------------------------------------------------------- the solution cells' docstrings


@cache
def solution_function(notebook: str, name: str) -> ast.FunctionDef:
    """The function `name` of `notebook`'s solution cells (its stub keeps the signature and the docstring)."""
    for cell_type, kind, options, source in _cells((SCRIPTS / f"{notebook}.py").read_text()):
        if kind == "solution":
            for node in ast.parse(source).body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return node
    raise KeyError(f"{notebook}: no solution cell defines {name}")


def docstring(notebook: str, name: str) -> str:
    """The docstring of exercise `name`'s function, as the student's stub shows it."""
    return ast.get_docstring(solution_function(notebook, name)) or ""


def parameters(notebook: str, name: str) -> list[str]:
    """The names of the function's parameters, in order."""
    args = solution_function(notebook, name).args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def statements(text: str) -> list[str]:
    """The statements of a docstring, each flattened: its sentences, and within a sentence the entries that a
    semicolon separates (``X: (..., n, d); W_q: (d, d_k)`` is two), never split inside brackets."""
    text, found, start, depth = flat(text), [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "([{") - (c in ")]}")
        if depth == 0 and (c == ";" or c in ".!?" and (i + 1 == len(text) or text[i + 1] == " ")):
            found.append(text[start:i + 1].strip())
            start = i + 1
    return [s for s in found + [text[start:].strip()] if s]

