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

`FeedbackExporter` (GenerateFeedback.exporter_class, set by configure.py) writes
the page in English with a stylesheet that makes it pass WCAG 2.1 AA.
"""

import re

from nbconvert.exporters import HTMLExporter
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


# What nbgrader's feedback template lacks for WCAG 2.1 AA (tests/test_accessibility.py audits the pages):
# the page's language; links told apart by more than colour, in colours that meet 4.5:1 on their
# backgrounds (nbgrader's "(Top)" links are #bbb on blue; Pygments' colours for code meet it on white,
# not on Bootstrap's grey #f5f5f5 behind a pre); long messages wrapped rather than in a
# scrolling box a keyboard cannot reach; a visible focus.
ACCESSIBLE_CSS = """<style>
a { text-decoration: underline; }
#toc a { color: #1d4f7c; }
div.nbgrader_cell .panel-heading a { color: #fff; }
div.input_area, div.input_area .highlight, div.input_area pre { background: #fff; }
div.output_area pre { white-space: pre-wrap; overflow-wrap: anywhere; }
:focus-visible { outline: 3px solid #1d4f7c; outline-offset: 2px; }
</style>
"""


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback page (whatever template nbgrader's configuration names), in English and with
    ACCESSIBLE_CSS last in its head, so it overrides the template's own colours."""

    def from_notebook_node(self, nb, resources=None, **kw):
        output, resources = super().from_notebook_node(nb, resources, **kw)
        output = re.sub(r"<html(?![^>]*\blang=)", '<html lang="en"', output, count=1)
        return output.replace("</head>", ACCESSIBLE_CSS + "</head>", 1), resources
