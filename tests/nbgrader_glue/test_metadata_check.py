"""Does the kit's faster metadata check (schema compiled once) accept and refuse
exactly what nbgrader's CheckCellMetadata does?"""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import SchemaMismatchError

from kit.nbgrader_glue.preprocessors import _CompiledMetadataValidator
from kit.notebooks import ROOT

NOTEBOOK = nbformat.read(ROOT / "source" / "attention" / "03_softmax_and_mix.ipynb", as_version=4)


def _graded(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))


def _edit(change):
    nb = copy.deepcopy(NOTEBOOK)
    change(_graded(nb).metadata["nbgrader"])
    return nb


EDITS = {
    "untouched": lambda meta: None,
    "points missing": lambda meta: meta.pop("points"),
    "points not a number": lambda meta: meta.update(points="two"),
    "grade_id empty": lambda meta: meta.update(grade_id=""),
    "grade not a boolean": lambda meta: meta.update(grade="yes"),
    "schema too old": lambda meta: meta.update(schema_version=1),
    "schema too new": lambda meta: meta.update(schema_version=9),
}


def _verdict(validator, nb) -> str:
    try:
        validator().validate_nb(nb)
        return "accepted"
    except (ValidationError, SchemaMismatchError) as refused:
        return f"refused: {type(refused).__name__}"


@pytest.mark.parametrize("edit", EDITS)
def test_the_compiled_check_agrees_with_nbgraders(edit):
    nb = _edit(EDITS[edit])
    assert _verdict(_CompiledMetadataValidator, nb) == _verdict(MetadataValidator, nb)
    assert (_verdict(MetadataValidator, nb) == "accepted") == (edit == "untouched")
