"""What a student wrote in markdown, shown as text in every page nbgrader renders: never markup.

nbgrader renders a markdown cell with nbconvert's renderer, which passes HTML through: a `<script>`,
an `<iframe>`, an `onerror=` attribute, a `<style>` or a `javascript:` link in a written answer would
act in the grader's formgrader (with the grader's rights on their Jupyter server) and in the feedback.
`WrittenAnswersAsText` runs among autograde's sanitizing preprocessors, on either grading path, so the
autograded notebook the formgrader and the feedback render holds each markdown cell the student wrote
as one fenced block of its words (kit/written.py `as_text`): every markdown renderer shows it as text,
whoever starts the formgrader and however it is configured. A cell the student wrote is a markdown cell
that nbgrader does not lock (and so restore from the gradebook) and that is not, word for word, one of
the source notebook's (a written answer; on nbgrader's stock path also a text cell they edited or added).

generate_feedback runs it again (a cell already shown as text stays as it is: a notebook autograded
before, or elsewhere, is covered too) and names, in the resources, each answer cell (answered or not)
and each cell of the student's, with the written question it answers: the feedback page labels it as
the student's and puts the grader's points and comment under it (templates/kit_feedback/).
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.handed_in import answer_cell_id
from autograder.source_assignment import cell_text
from kit.nbgrader_glue.preprocessors import UNCONFINED_NOTE, source_notebook
from kit.written import as_text

ANSWERS = "written_answers"  # resources[ANSWERS]: cell id → {"question": its title, "task": its grade id}, "" if none


class WrittenAnswersAsText(NbGraderPreprocessor):
    """Every markdown cell of the student's as one block of text (kit/written.py `as_text`); each answer cell,
    and each cell of the student's, named in resources[ANSWERS]."""

    def preprocess(self, nb, resources):
        kit_text = {cell_text(cell) for cell in source_notebook(self.config, resources).cells
                    if cell.cell_type == "markdown"} | {UNCONFINED_NOTE}  # and the note autograde puts first
        questions = {answer_cell_id(cell.metadata.nbgrader.grade_id): {"question": _title(cell_text(cell)),
                                                                       "task": cell.metadata.nbgrader.grade_id}
                     for cell in nb.cells if cell.cell_type == "markdown" and _nbgrader(cell).get("task")}
        answers = resources.setdefault(ANSWERS, {})
        for cell in nb.cells:
            if cell.cell_type != "markdown" or _nbgrader(cell).get("locked"):
                continue
            theirs = cell_text(cell) not in kit_text
            if theirs:
                cell.source = as_text(cell_text(cell))
            if theirs or cell.get("id") in questions:
                answers[cell.get("id", "")] = questions.get(cell.get("id"), {"question": "", "task": ""})
        return nb, resources


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _title(markdown: str) -> str:
    """A written question's title: its first line, without the heading's marks."""
    return markdown.strip().split("\n", 1)[0].lstrip("#").strip()
