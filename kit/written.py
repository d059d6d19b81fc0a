"""Written answers: questions a student answers in prose, graded by a person in the formgrader.

Each is one nbgrader "manually graded task" cell (markdown, read-only, `task: true`) that
holds the question and, between ``### BEGIN MARK SCHEME`` and ``### END MARK SCHEME``, its
rubric, followed by a markdown answer cell of the student's (``YOUR ANSWER HERE``; its cell id
is `autograder.handed_in.answer_cell_id`). kit/notebooks.py builds both from one
``# %% [markdown] written id=<grade_id>`` block of a percent script.

Why a task cell with a mark scheme, not nbgrader's "manually graded answer" cell: the
grader must see the rubric beside the answer, and the student must never see it. An answer
cell's only place for a rubric is its solution region, which the release replaces with the
stub and the student's answer replaces in turn, so the formgrader never shows it. A task
cell's mark scheme is nbgrader's own mechanism for exactly this: `generate_assignment`
strips it (ClearMarkScheme) while the gradebook keeps the full cell, and autograde puts the
full cell back (the kit's RestoreFromSource, nbgrader's OverwriteCells), so the formgrader,
which shows the autograded notebook, shows the rubric above the student's answer, with the
task's score and comment boxes. nbgrader's feedback would show it too (its documentation
says so); the kit's feedback runs ClearMarkScheme again (nbgrader_config.py), so the student
sees the grader's points and comment, never the rubric.

A rubric is a list of points, one line each, and the question is worth their sum:

    - **1 point**: what earns it. Look for: "a phrase", "another"

"Look for" names phrases that usually mark the point; the stand-in teaching assistant of
`make demo` (kit/teaching_assistant.py) awards a point when one of them is in the answer.

What a student writes is shown as text, never as markup: the autograded notebook (what the
formgrader and the feedback render, with nbgrader's own markdown renderer, which passes HTML
through) holds each answer as one fenced block of its words (`as_text`), so no HTML, script,
link or style of the student's can act in a grader's or a student's page, whoever renders it
(kit/nbgrader_glue/written_as_text.py); `as_written` gives the words back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from autograder.handed_in import ANSWER_STUB, MARK_SCHEME, answer_cell_id, cell_text
from autograder.source_assignment import SourceAssignment

# A rubric item: from its "- **N points**:" to the next item, a blank line or the end (it may wrap).
POINT = re.compile(r"^[ \t]*[-*] \*\*(?P<points>\d+(?:\.\d+)?) points?\*\*:(?P<text>.*?)(?=^[ \t]*[-*] \*\*|^\s*$|\Z)",
                   re.M | re.S)
LOOK_FOR = re.compile(r"\s*Look for:\s*(?P<cues>.*)$", re.S)


class RubricPoint(NamedTuple):
    points: float
    text: str               # what earns it
    cues: tuple[str, ...]   # phrases that usually mark it, lower case


def rubric(task_source: str) -> list[RubricPoint]:
    """The rubric in a written question's mark scheme (ValueError if it has none, or no points)."""
    scheme = MARK_SCHEME.search(task_source)
    if scheme is None:
        raise ValueError("a written question needs a ### BEGIN MARK SCHEME / ### END MARK SCHEME rubric")
    inside = "\n".join(scheme.group().rstrip("\n").split("\n")[1:-1])  # without the BEGIN and END lines
    found = []
    for line in POINT.finditer(inside):
        text, cues = " ".join(line["text"].split()), ()
        look_for = LOOK_FOR.search(text)
        if look_for:
            text = text[:look_for.start()]
            cues = tuple(cue.lower() for cue in re.findall(r'"([^"]+)"', look_for["cues"]))
        found.append(RubricPoint(float(line["points"]), text.strip(), cues))
    if not found:
        raise ValueError('a rubric needs lines "- **N points**: what earns them"')
    return found


def points(task_source: str) -> float:
    """What a written question is worth: the sum of its rubric's points."""
    return sum(point.points for point in rubric(task_source))


def answered(text: str) -> bool:
    """Did the student write anything in place of the stub?"""
    return bool(text.replace(ANSWER_STUB, "").strip())


# A block as_text writes: a fence of three or more backticks, the words, the same fence (no language: renderers
# give it a plain <pre><code>, which the formgrader's Bootstrap wraps).
_AS_TEXT = re.compile(r"(?P<fence>`{3,})\n(?P<words>.*)\n(?P=fence)", re.S)


def as_text(words: str) -> str:
    """Markdown that any CommonMark renderer shows as `words`, verbatim and inert: one fenced code block
    (its lines ended by \\n) whose fence is longer than any run of backticks in `words`, so no line of
    theirs can close it. Given its own output, it returns it unchanged."""
    if _shown_words(words) is not None:
        return words
    words = words.replace("\r\n", "\n").replace("\r", "\n")
    fence = "`" * max(3, _longest_backtick_run(words) + 1)
    return f"{fence}\n{words}\n{fence}"


def as_written(markdown: str) -> str:
    """The words of an answer as_text showed as text; any other markdown as it is."""
    words = _shown_words(markdown)
    return markdown if words is None else words


def _shown_words(markdown: str) -> str | None:
    """The words if `markdown` is exactly one block as_text writes, else None (a student's own fence that
    a line of theirs closes early is not one)."""
    block = _AS_TEXT.fullmatch(markdown)
    if block is None or "\r" in block["words"] or _longest_backtick_run(block["words"]) >= len(block["fence"]):
        return None
    return block["words"]


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


class WrittenAnswer(NamedTuple):
    grade_id: str
    question: str  # the task cell's source, rubric included where the notebook holds it
    answer: str    # the answer cell's source


def written_cells(notebook: dict) -> list[WrittenAnswer]:
    """Every written question of a notebook (JSON, as read) with the answer beside it."""
    cells = notebook["cells"]
    by_id = {cell.get("id"): cell for cell in cells}
    found = []
    for cell in cells:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("task"):
            answer = by_id.get(answer_cell_id(meta["grade_id"]), {"source": ANSWER_STUB})
            found.append(WrittenAnswer(meta["grade_id"], cell_text(cell), as_written(cell_text(answer))))
    return found


def written_questions(source: Path) -> list[tuple[str, str, float]]:
    """(notebook, grade_id, points) of every written question in the notebooks of `source`, in order."""
    return [(name, question.grade_id, points(question.question))
            for name, nb in SourceAssignment.of(source).notebooks.items() for question in written_cells(nb)]

