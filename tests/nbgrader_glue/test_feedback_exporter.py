"""Does the feedback page, with nbconvert's per-page set-up and copies done once or not at all, stay the page it was?"""

from __future__ import annotations

import base64
import warnings

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook, new_output
from traitlets.config import Config

from kit.nbgrader_glue.feedback_exporter import FeedbackExporter, HighlightOnce
from kit.nbgrader_glue.feedback_page import TEMPLATES
from tests.shared.course_copy import EXAMPLE

NOTEBOOK = "03_softmax_and_mix"
TINY_PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                                          "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5dd3cd6"
                                          "0000000049454e44ae426082")).decode()


def _config(exporter: str) -> Config:
    c = Config()
    c[exporter].template_name = "kit_feedback"
    c[exporter].extra_template_basedirs = [str(TEMPLATES)]
    c[exporter].exclude_anchor_links = True
    return c


def _resources() -> dict:
    return {"nbgrader": {"notebook": NOTEBOOK, "score": 3.0, "max_score": 7.0, "late_penalty": 0},
            "inlining": {"css": []}}


def _page(exporter, nb: nbformat.NotebookNode) -> str:
    return exporter.from_notebook_node(nb, {**_resources(), "metadata": {"name": NOTEBOOK, "path": "."}})[0]


def _kit() -> FeedbackExporter:
    return FeedbackExporter(config=_config("FeedbackExporter"))


def _handed_in(student: str) -> nbformat.NotebookNode:
    """The student's notebook 03 with the grades and comments GetGrades puts on its cells."""
    nb = nbformat.read(EXAMPLE / student / "attention" / f"{NOTEBOOK}.ipynb", as_version=4)
    for i, cell in enumerate(nb.cells):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("task"):
            meta.update(score=i % 2, points=1.0)
        if meta.get("solution") or meta.get("task"):
            meta["comment"] = "No response." if i % 3 else None
    return nb


def _with_image(alt: bool) -> nbformat.NotebookNode:
    figure = new_output("display_data", data={"image/png": TINY_PNG, "text/plain": "<Figure>"},
                        metadata={"image/png": {"alt": "the weights"}} if alt else {})
    return new_notebook(cells=[new_code_cell("plot()", outputs=[figure])])


def test_are_two_students_pages_from_one_exporter_byte_for_byte_those_of_a_fresh_exporter():
    once = _kit()
    for student in ("ada", "bo"):  # bo's page: the kit's cells come from what ada's page rendered
        assert _page(once, _handed_in(student)) == _page(_kit(), _handed_in(student))


def test_does_a_second_page_reuse_the_template_and_render_the_kits_cells_from_memory():
    exporter = _kit()
    _page(exporter, _handed_in("ada"))
    template = exporter.template
    [highlighter] = exporter._highlighters.values()  # one language: the notebook's
    highlighted, rendered = highlighter._highlighted.cache_info(), exporter._markdown.cache_info()
    _page(exporter, _handed_in("bo"))
    assert exporter.template is template and list(exporter._highlighters.values()) == [highlighter]
    assert highlighter._highlighted.cache_info().hits > highlighted.hits
    assert exporter._markdown.cache_info().hits > rendered.hits


def test_is_a_page_without_an_image_the_same_document_as_nbconverts_exporter_writes():
    nbconvert = HTMLExporter(config=_config("HTMLExporter"))
    for student in ("ada", "hal"):
        page = _page(_kit(), _handed_in(student))
        assert "<img" not in page
        assert str(BeautifulSoup(page, features="html.parser")) == _page(nbconvert, _handed_in(student))


@pytest.mark.parametrize("alt", [True, False], ids=["with its alt text", "without alt text"])
def test_is_a_page_with_an_image_byte_for_byte_nbconverts(alt):
    nb = _with_image(alt)
    page = _page(_kit(), nb)
    assert page == _page(HTMLExporter(config=_config("HTMLExporter")), nb)
    assert ('alt="the weights"' if alt else 'alt="No description has been provided for this image"') in page


def test_does_the_exporter_keep_no_notebook_metadata_once_a_page_is_written():
    exporter = _kit()
    for student in ("ada", "bo", "cy"):
        _page(exporter, _handed_in(student))
    assert exporter._nb_metadata == {}


def test_is_a_page_read_from_a_file_nbconverts_page_of_that_file_and_the_notebook_never_copied(tmp_path, monkeypatch):
    path = tmp_path / f"{NOTEBOOK}.ipynb"
    nbformat.write(_handed_in("hal"), path)
    expected = HTMLExporter(config=_config("HTMLExporter")).from_filename(str(path), _resources())[0]
    copies = []
    copy_of = NotebookNode.__deepcopy__
    monkeypatch.setattr(NotebookNode, "__deepcopy__", lambda node, memo: copies.append(node) or copy_of(node, memo))
    page = _kit().from_filename(str(path), _resources())[0]
    assert str(BeautifulSoup(page, features="html.parser")) == expected
    assert copies == []
    _page(_kit(), _handed_in("hal"))  # a notebook its caller holds is copied, as nbconvert copies it
    assert copies


@pytest.mark.parametrize("language, magics", [("ipython3", None), ("ipython3", "bash"), ("python", None),
                                              ("ipython2", None), ("javascript", None), ("no such language", None)])
def test_does_each_source_come_out_highlighted_as_nbconverts_filter_highlights_it(language, magics):
    ours, nbconverts = HighlightOnce(), Highlight2HTML()
    metadata = {"magics_language": magics} if magics else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unknown language's warning, each time from nbconvert, once from ours
        for source in ("", "x = 1  # a comment\n", "%%bash\necho 'hi' > /dev/null\n", "def f(a):\n    return a <b>\n"):
            for _ in range(2):  # the second time, with the formatter and lexer made the first time
                assert ours(source, language, metadata) == nbconverts(source, language, metadata)
