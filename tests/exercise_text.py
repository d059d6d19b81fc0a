"""What the notebooks tell the student about each exercise: its part of the text, split into sentences.

An exercise's part runs from its ``### Exercise`` heading to its solution cell
(three functions share one heading in notebook 09); a notebook's introduction
is its first markdown cell. Read from the percent scripts (notebooks/), the
text the release is built from.
"""

from __future__ import annotations

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
