"""Feedback that shows each hidden check's name, verdict and message, never its code.

nbgrader's own feedback prints hidden test code, in the cell and again in the
traceback (its issues 917 and 1363). `HideHiddenTests` runs last in
`GenerateFeedback.preprocessors` (see configure.py): it replaces the
hidden part of every graded cell with one comment line, and every error's
traceback with its last line, which is the check's own message.

nbgrader's feedback also shows a written question's rubric (the mark scheme of
its task cell, kit/written.py); nbgrader's own ClearMarkScheme, put before this
in the same list, removes it, so the student reads the grader's points and
comment under their answer, never the rubric.

`FeedbackExporter` (feedback_exporter.py; GenerateFeedback.exporter_class, set by
configure.py) writes the page with the kit's template (templates/kit_feedback/),
which makes it pass WCAG 2.1 AA at any width from 320 CSS px
(tests/browser/test_accessibility.py audits it).
"""

from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from autograder.handed_in import HIDDEN_TESTS


class HideHiddenTests(Preprocessor):
    enabled = Bool(True, help="Hide hidden test code and tracebacks in feedback.").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade"):
            if "### BEGIN HIDDEN TESTS" in cell.source:
                cell.source = HIDDEN_TESTS.sub("# (hidden checks: their code is not shown)\n", cell.source)
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


TEMPLATES = Path(__file__).with_name("templates")  # the kit's nbconvert templates: kit_feedback/
