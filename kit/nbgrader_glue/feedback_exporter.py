"""`FeedbackExporter`: the feedback page, with what nbconvert redoes for every page done once per process.

nbgrader's GenerateFeedback makes one exporter per command and renders every
page with it (its Jinja environment and the compiled template are kept), but
nbconvert's HTMLExporter still redoes, page after page and cell after cell,
work whose result is the same for every student, though most cells of a page
are the kit's own and on every student's page:

- it parses each whole page again with BeautifulSoup and writes it out again,
  to give an `<img>` without alt text nbconvert's placeholder and to make the
  cells of JupyterLab's template focusable. The kit's page is the classic
  template's (no JupyterLab cells), so a page with no `<img>` is written as the
  template renders it: the same document, though nbconvert's pass writes it
  out a little differently (`<meta .../>`, attributes' quotes); a page with an
  `<img>` (a figure on nbgrader's stock path) goes through that pass as there;
- it makes a pygments formatter and lexer for each code cell and a markdown
  parser for each markdown cell: here each distinct source (its language,
  its attachments, what the renderer is told) is rendered once per process,
  the last MEMO of them kept, and a source not seen yet is highlighted with
  the formatter and lexer of its language made once;
- it copies the notebook it reads three times, to keep the caller's copy
  intact (before its preprocessors, and in `validator.normalize`): here the
  notebook read from a file is the exporter's own, and nothing is copied
  (`Unshared`); a notebook handed to `from_notebook_node` is copied as there;
- it checks the notebook against nbformat's schema when it reads it, which
  only logs, and after each preprocessor: here once, after the last
  (`optimistic_validation`), an invalid notebook failing the page as before;
- Jinja copies every block's list of overrides (some sixty here) into each
  derived context, one per scoped block a cell renders: here a derived
  context shares its parent's (`BlocksShared`);
- it keeps every page's notebook metadata for as long as the exporter lives
  (`_nb_metadata`, read while a page renders): here only while a page renders,
  so a process's memory does not grow with the pages it writes.

The template is the kit's (templates/kit_feedback/: the page in English, laid
out and coloured for WCAG 2.1 AA from 320 CSS px up, what the student wrote
labelled as theirs). A class of its own, so configure.py names the template
for feedback alone: the formgrader's HTMLExporter, configured from the same
nbgrader_config.py, keeps nbgrader's.
"""

from __future__ import annotations

import json
from functools import lru_cache
from html import escape
from warnings import warn

from bs4 import BeautifulSoup
from jinja2 import pass_context
from jinja2.runtime import Context, new_context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbformat import NotebookNode
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound
from traitlets import default

from kit.nbgrader_glue.autograde_exporter import read_as_nbformat_does

MEMO = 4096  # distinct sources kept rendered, per filter and process: the kit's cells, a few students' own


@lru_cache(maxsize=None)
def lexer_for(language: str) -> Lexer:
    """The lexer nbconvert's highlighting (filters/highlight.py `_pygments_highlight`) picks for `language`."""
    if language in ("ipython2", "ipython3"):
        try:
            from IPython.lib import lexers
        except ModuleNotFoundError:
            language = {"ipython2": "python", "ipython3": "python3"}[language]
            warn(f"IPython lexer unavailable, falling back on {language}", stacklevel=2)
        else:
            return lexers.IPythonLexer() if language == "ipython2" else lexers.IPython3Lexer()
    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        warn(f"No lexer found for language {language!r}. Treating as plain text.", stacklevel=2)
        return TextLexer()


class HighlightOnce(Highlight2HTML):
    """nbconvert's highlight_code filter, each distinct (source, language, magics language) highlighted once, with
    one formatter per language and one lexer per language it reads."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._highlighted = lru_cache(maxsize=MEMO)(self._highlight)
        self._formatters: dict[str, HtmlFormatter] = {}

    def __call__(self, source, language=None, metadata=None):
        magics = (metadata or {}).get("magics_language")
        return self._highlighted(source, language or self.pygments_lexer, magics)

    def _highlight(self, source: str, language: str, magics: str | None) -> str:
        if language not in self._formatters:  # its class names the language, as nbconvert's does
            self._formatters[language] = HtmlFormatter(cssclass=escape(f" highlight hl-{language}"),
                                                       **self.extra_formatter_options)
        read_as = magics if magics and language.startswith("ipython") else language
        return highlight(source or " ", lexer_for(read_as), self._formatters[language])


class Unshared(NotebookNode):
    """A notebook only the exporter holds: what nbconvert copies to keep its caller's notebook intact is itself."""

    def __deepcopy__(self, memo):
        return self


class BlocksShared(Context):
    """Jinja's template context, whose derived contexts share its blocks instead of copying each one's list:
    only a template's root adds to them, as it extends another, never a derived context (a scoped block's,
    a macro's caller's); an included or imported template gets a context of its own."""

    def derived(self, locals=None):
        context = new_context(self.environment, self.name, {}, self.get_all(), True, None, locals)
        context.eval_ctx = self.eval_ctx
        context.blocks = self.blocks
        return context


class FeedbackExporter(HTMLExporter):
    """The feedback page: nbconvert's HTMLExporter with the kit's template, its per-page set-up done once."""

    @default("optimistic_validation")
    def _validate_once(self) -> bool:
        return True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._highlighters: dict[str | None, HighlightOnce] = {}
        self._markdown = lru_cache(maxsize=MEMO)(self._markdown_of)

    @pass_context
    def markdown2html(self, context, source):
        """nbconvert's markdown2html, each distinct source (with its cell's attachments) rendered once; with
        `embed_images` (images read from the notebook's folder) every time, as nbconvert does."""
        if self.embed_images:
            return super().markdown2html(context, source)
        attachments = context.get("cell", {}).get("attachments", {})
        return self._markdown(source, json.dumps(attachments, sort_keys=True) if attachments else "")

    def _create_environment(self):
        environment = super()._create_environment()
        environment.context_class = BlocksShared
        return environment

    def _markdown_of(self, source: str, attachments: str) -> str:
        cell = {"attachments": json.loads(attachments)} if attachments else {}
        return super().markdown2html({"cell": cell}, source)

    def from_file(self, file_stream, resources=None, **kw):
        """The page of the notebook in `file_stream`, read without the check that only logs, and not copied."""
        return self.from_notebook_node(Unshared(read_as_nbformat_does(file_stream.read(), check=False)), resources, **kw)

    def from_notebook_node(self, nb, resources=None, **kw):
        """HTMLExporter's page; its BeautifulSoup pass only on a page with an `<img>` (see the module)."""
        info = nb.metadata.get("language_info", {})
        lexer = info.get("pygments_lexer", info.get("name", None))
        if lexer not in self._highlighters:
            self._highlighters[lexer] = HighlightOnce(pygments_lexer=lexer, parent=self)
        resources = self._init_resources(resources)
        self.register_filter("highlight_code", self.filters.get("highlight_code", self._highlighters[lexer]))
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                       parent=self, resources=resources))
        try:
            html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        finally:
            self._nb_metadata.clear()
        return (self._described(html) if "<img" in html else html), resources

    def _described(self, html: str) -> str:
        """The page after HTMLExporter.from_notebook_node's BeautifulSoup pass, as nbconvert 7.17 writes it."""
        soup = BeautifulSoup(html, features="html.parser")
        missing_alt = 0
        for elem in soup.select("img:not([alt])"):
            elem.attrs["alt"] = "No description has been provided for this image"
            missing_alt += 1
        if missing_alt:
            self.log.warning("Alternative text is missing on %s image(s).", missing_alt)
        for elem in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
            elem.attrs["tabindex"] = "0"
        for elem in soup.select(".jp-Notebook div.jp-OutputArea-output"):
            elem.attrs["tabindex"] = "0"
        return str(soup)
