"""`AutogradeExporter`: nbconvert's NotebookExporter for autograde, without the copies and checks it repeats.

nbgrader's Autograde converts each notebook twice (autograde.py): it sanitizes
the handed-in notebook and writes it, then reads that file back and grades it.
For each pass nbconvert's NotebookExporter reads the file and checks it against
nbformat's schema, copies the whole notebook three times (to keep the caller's
copy intact, before its preprocessors, and again in `validator.normalize`),
checks it after the preprocessors, then `nbformat.writes` checks it again and
copies it once more to split its lines: eight copies and six checks a notebook.
Here each pass reads a notebook only the exporter holds, so nothing is copied to
keep it intact:

- a handed-in notebook is read as nbconvert reads it (`nbformat.read`, whose
  check against the schema only logs: the instructor sees a notebook a student
  broke), and the sanitized one is handed to the second pass as the text just
  written (`from_written`), parsed as `nbformat.read` parses it, without
  checking again a notebook checked before it was written;
- `validator.normalize` still makes its copy and repairs what it repairs; the
  check after the last preprocessor still fails a notebook a step left invalid
  (`optimistic_validation`, as configure.py sets it), and the text is written as
  `nbformat.writes` writes it (the same bytes), without its second check, which
  only logs, of the notebook just checked;
- the notebook's metadata is not kept once it is written (nbconvert keeps every
  notebook's for as long as the exporter lives, a class's worth).

The autograded notebooks are the same, byte for byte (tests/nbgrader_glue/test_grading_outputs.py).
"""

from __future__ import annotations

import copy
import datetime
import json
import os

import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import validator
from nbformat.v4.nbjson import BytesEncoder
from nbformat.v4.rwbase import split_lines, strip_transient

AS_VERSION = 4


def read_as_nbformat_does(text: str, check: bool = True) -> nbformat.NotebookNode:
    """`nbformat.reads(text, as_version=4)`; with check=False without its check against the schema, which
    only logs (the exceptions of a notebook that cannot be read are the same)."""
    if check:
        return nbformat.reads(text, as_version=AS_VERSION)
    return nbformat.convert(nbformat.reader.reads(text), AS_VERSION)


def written_as_nbformat_does(nb: nbformat.NotebookNode) -> str:
    """`nbformat.writes(nb)` of a version-4 notebook, byte for byte, changing `nb` (its lines split, its transient
    metadata dropped) instead of a copy, and without checking it against the schema."""
    return json.dumps(strip_transient(split_lines(nb)), cls=BytesEncoder, indent=1, sort_keys=True,
                      separators=(",", ": "), ensure_ascii=False)


class AutogradeExporter(NotebookExporter):
    """NotebookExporter for the notebooks autograde reads: each the exporter's own (see the module docstring)."""

    def from_file(self, file_stream, resources=None, **kw):
        return self._export_own(nbformat.read(file_stream, as_version=AS_VERSION), resources)

    def from_written(self, text: str, filename: str, resources: dict) -> tuple[str, dict]:
        """What from_filename(filename) gives when `filename` holds `text`, a notebook this exporter wrote."""
        if "metadata" not in resources or resources["metadata"] == "":
            resources["metadata"] = ResourcesDict()
        path, basename = os.path.split(filename)
        metadata = resources["metadata"]
        metadata["name"], metadata["path"] = os.path.splitext(basename)[0], path
        modified = datetime.datetime.fromtimestamp(os.path.getmtime(filename), tz=datetime.timezone.utc)
        metadata["modified_date"] = modified.strftime("%B %-d, %Y")
        return self._export_own(read_as_nbformat_does(text, check=False), resources)

    def _export_own(self, nb, resources) -> tuple[str, dict]:
        """NotebookExporter.from_notebook_node of a notebook nobody else holds: the same text, no copies."""
        resources = self._init_resources(resources)
        if "language" in nb["metadata"]:
            resources["language"] = nb["metadata"]["language"].lower()
        nb, resources = self._preprocess_own(nb, resources)
        if nb.nbformat != self.nbformat_version:  # a conversion: nbconvert's own way
            resources["output_suffix"] = ".v%i" % self.nbformat_version
            output = nbformat.writes(nb, version=self.nbformat_version)
        else:
            resources["output_suffix"] = ".nbconvert"
            output = written_as_nbformat_does(nb)
        return (output if output.endswith("\n") else output + "\n"), resources

    def _preprocess_own(self, nb, resources):
        """Exporter._preprocess without its copy of the notebook (normalize makes one)."""
        resources = copy.deepcopy(resources)
        _, nb = validator.normalize(nb)
        preprocessor = None
        for preprocessor in self._preprocessors:
            nb, resources = preprocessor(nb, resources)
            if not self.optimistic_validation:
                self._validate_preprocessor(nb, preprocessor)
        if self.optimistic_validation:
            self._validate_preprocessor(nb, preprocessor)
        return nb, resources
