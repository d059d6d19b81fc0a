"""Does the grader's own copy of nbgrader's cell checksum agree with nbgrader's, on every kind of cell? Is every
file a student hands in read as a notebook or refused in plain words, never with a crash? Is a notebook handed in
under another name taken for its own, never through a link?"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbgrader.utils import compute_checksum

from autograder.handed_in import _read_as_nbgrader_would, nbgrader_checksum, read_notebook, under_their_names
from autograder.source_assignment import SourceAssignment
from kit.notebooks import ROOT
from tests.shared.course_copy import EXAMPLE


def released_cells() -> list[dict]:
    """Every nbgrader cell of the student release, as nbgrader wrote it (checksum included)."""
    cells = []
    for path in sorted((ROOT / "assignments" / "attention").glob("*.ipynb")):
        cells += [c for c in json.loads(path.read_text())["cells"] if "nbgrader" in c["metadata"]]
    return cells


def variants(cell: dict) -> list[dict]:
    """The cell with its source joined, and with each flag nbgrader hashes turned over."""
    cell = {**cell, "source": "".join(cell["source"])}
    out = [cell]
    for key, value in [("grade", True), ("grade", False), ("solution", True), ("solution", False),
                       ("locked", True), ("locked", False), ("points", 2.5), ("grade_id", "renamed")]:
        changed = copy.deepcopy(cell)
        changed["metadata"]["nbgrader"][key] = value
        changed["metadata"]["nbgrader"].setdefault("points", 1)
        out.append(changed)
    out.append({**cell, "source": cell["source"] + "\n# é, 注"})
    return out


def test_the_release_holds_graded_answer_and_locked_cells():
    flags = [c["metadata"]["nbgrader"] for c in released_cells()]
    assert any(f.get("grade") and not f.get("solution") for f in flags)  # a check
    assert any(f.get("solution") and not f.get("grade") for f in flags)  # an answer
    assert any(f.get("locked") and not f.get("grade") for f in flags)    # a locked cell that is not graded


def test_the_checksum_is_nbgraders_on_every_released_cell_and_its_variants():
    wrong = []
    for cell in released_cells():
        meta = cell["metadata"]["nbgrader"]
        if "checksum" in meta and nbgrader_checksum({**cell, "source": "".join(cell["source"])}) != meta["checksum"]:
            wrong.append((meta["grade_id"], "stored"))
        wrong += [(meta["grade_id"], i) for i, variant in enumerate(variants(cell))
                  if nbgrader_checksum(variant) != compute_checksum(nbformat.from_dict(variant))]
    assert wrong == []


HOSTILE = {
    "nested too deeply": "[" * 100_000 + "]" * 100_000,
    "an object nested too deeply": '{"cells": [' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "]}",
    "an integer too long to convert": '{"cells": [], "n": ' + "9" * 100_000 + "}",
    "not UTF-8": b'{"cells": ["\xff"]}',
    "a list": "[]",
    "no cells": '{"cells": {}}',
    "empty": "",
    "version 3 of the format": '{"nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}], "metadata": {}}',
}


@pytest.mark.parametrize("mark, encoding", [(b"\xef\xbb\xbf", "utf-8"), (b"", "utf-16"), (b"", "utf-16-be")])
def test_a_notebook_behind_a_byte_order_mark_is_refused_with_the_mark_named(tmp_path, mark, encoding):
    # As Notepad or PowerShell may save it: its JSON is sound, so "not valid JSON" would send the student
    # looking for a fault that is not there. (Python's "utf-16" writes a mark first; "utf-16-be" none: one is added.)
    text = (ROOT / "source" / "attention" / "03_softmax_and_mix.ipynb").read_text(encoding="utf-8")
    content = mark + text.encode(encoding) if encoding != "utf-16-be" else b"\xfe\xff" + text.encode(encoding)
    path = tmp_path / "03_softmax_and_mix.ipynb"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="^notebook unreadable: it begins with a UTF-(8|16) byte-order mark"):
        read_notebook(path)


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_file_is_refused_in_plain_words_never_with_a_crash(tmp_path, kind):
    path = tmp_path / "03_softmax_and_mix.ipynb"
    content = HOSTILE[kind]
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match="^notebook unreadable: ") as refused:
        read_notebook(path)
    if kind == "version 3 of the format":  # as Jupyter wrote notebooks before 2015: JupyterLab saves it anew
        assert "version 3 of the notebook format" in str(refused.value) and "open it in JupyterLab" in str(refused.value)


def test_a_lone_surrogate_is_refused_with_its_cell_named_and_a_pair_is_read(tmp_path):
    # JSON's escapes can write half of a UTF-16 pair, which no UTF-8 file holds: nbgrader could not write the
    # notebook again (the student's autograde stopped part-way), nor the class report a page quoting its answer.
    notebook = json.loads((ROOT / "source" / "attention" / "03_softmax_and_mix.ipynb").read_text(encoding="utf-8"))
    notebook["cells"][3]["source"] = "# a smile \U0001F600 and half of one \ud83d\n" + "".join(notebook["cells"][3]["source"])
    path = tmp_path / "03_softmax_and_mix.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")  # ensure_ascii: both written as \\u escapes
    with pytest.raises(ValueError, match=r"^notebook unreadable: cell 4 \(the one that begins '# a smile .*broken "
                                         r"character .*delete that character"):
        read_notebook(path)
    notebook["cells"][3]["source"] = "# a smile \U0001F600\n"
    notebook["metadata"]["\udc00"] = 1
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with pytest.raises(ValueError, match="^notebook unreadable: its metadata holds a broken character"):
        read_notebook(path)
    del notebook["metadata"]["\udc00"]
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert read_notebook(path)["cells"][3]["source"] == "# a smile \U0001F600\n"


MALFORMED = {  # a notebook edited as text or written by a program: (change, what the message must name)
    "a cell's source holds numbers": (lambda nb: nb["cells"][3].update(source=[1, 2]), "cell 4: its source is not text"),
    "a cell's source is null": (lambda nb: nb["cells"][3].update(source=None), "cell 4: its source is not text"),
    "a cell has no kind": (lambda nb: nb["cells"][3].pop("cell_type"), "cell 4 (the one that begins 'def softmax(S, "
                                                                       "axis=-1):') does not say what kind of cell"),
    "an output's text holds a number": (lambda nb: nb["cells"][3].update(outputs=[{"output_type": "stream",
                                                                                   "name": "stdout", "text": [7]}]),
                                        "cell 4 (the one that begins 'def softmax(S, axis=-1):'), at its outputs → "
                                        "item 1 → text: "),
    "a cell's metadata is a list": (lambda nb: nb["cells"][3].update(metadata=[]), "cell 4 (the one that begins "),
    "a cell is a string": (lambda nb: nb["cells"].__setitem__(1, "x"), "cell 2 is not a cell"),
    "no format version": (lambda nb: nb.pop("nbformat"), "the notebook: 'nbformat' is a required property"),
}


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_notebook_nbgrader_or_the_grader_cannot_read_is_refused_naming_the_cell_and_key(tmp_path, kind):
    """Not nbformat's own error ("TypeError: sequence item 0: ..."); and not a crash of nbgrader (a cell with no
    cell_type) or of the grader (a source of null: the student's every notebook scored 0) later."""
    change, named = MALFORMED[kind]
    notebook = json.loads((EXAMPLE / "ada" / "attention" / "03_softmax_and_mix.ipynb").read_text(encoding="utf-8"))
    change(notebook)
    path = tmp_path / "03_softmax_and_mix.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        _read_as_nbgrader_would(path)
    assert str(refused.value).startswith(f"notebook unreadable: {named}"), str(refused.value)
    assert "open the copy you worked in with JupyterLab" in str(refused.value)
    assert "Error" not in str(refused.value) and "sequence item" not in str(refused.value)


ANY_CHARACTER = st.characters() | st.integers(0xD800, 0xDFFF).map(chr)  # st.characters() leaves surrogates out
JSON = st.recursive(st.none() | st.integers() | st.text(ANY_CHARACTER, max_size=5),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(ANY_CHARACTER, max_size=3), inner),
                    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.one_of(JSON, st.fixed_dictionaries({"cells": st.lists(JSON, max_size=4), "metadata": JSON}))
       .map(lambda value: json.dumps(value).encode()))
def test_any_file_is_read_as_a_notebook_or_refused_in_plain_words(content):
    with tempfile.TemporaryDirectory() as folder:  # 300 examples a run: none left behind
        path = Path(folder) / "notebook.ipynb"
        path.write_bytes(content)
        try:
            notebook = read_notebook(path)
        except ValueError as e:
            assert str(e).startswith("notebook unreadable: ")
        else:
            assert isinstance(notebook, dict) and isinstance(notebook["cells"], list)
            json.dumps(notebook, ensure_ascii=False).encode("utf-8")  # what nbgrader writes again, and the report
        try:
            _read_as_nbgrader_would(path)  # as autograde decides whether to set it aside
        except ValueError as e:
            assert str(e).startswith("notebook unreadable: ")


def test_a_notebook_handed_in_under_another_name_is_copied_to_its_own_never_through_a_link(tmp_path):
    source = SourceAssignment.of(ROOT / "source" / "attention")
    released = ROOT / "assignments" / "attention"
    handed = tmp_path / "attention"
    handed.mkdir()
    shutil.copy(released / "03_softmax_and_mix.ipynb", handed / "softmax (2).ipynb")
    outside = tmp_path / "outside.ipynb"
    (handed / "04_heads.ipynb").symlink_to(outside)  # a dangling link under notebook 04's name ...
    shutil.copy(released / "04_heads.ipynb", handed / "heads.ipynb")  # ... and 04 under another
    (handed / "05 linked.ipynb").symlink_to(released / "05_masks_and_cross_attention.ipynb")
    (handed / "notes.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (handed / "unzipped").mkdir()  # a zip unpacked into a folder of its own
    shutil.copy(released / "06_blockwise.ipynb", handed / "unzipped")
    (handed / ".ipynb_checkpoints").mkdir()  # Jupyter's, an older save: never taken
    shutil.copy(released / "07_cost.ipynb", handed / ".ipynb_checkpoints" / "07_cost-checkpoint.ipynb")
    (handed / "linked folder").symlink_to(released, target_is_directory=True)
    (handed / "locked").mkdir(mode=0)  # a folder its owner made unreadable (root reads it: then it is empty)
    shutil.copy(released / "09_model_explorer.ipynb", handed / "09_MODEL_EXPLORER.IPYNB")  # a name in capitals
    shutil.copy(released / "08_check_yourself.ipynb", handed)  # handed in under its name, and a copy that differs
    copy1 = json.loads((released / "08_check_yourself.ipynb").read_text())
    (handed / "08_check_yourself-Copy1.ipynb").write_text(json.dumps({**copy1, "cells": copy1["cells"][::-1]}))
    before = sorted(p.name for p in handed.iterdir())
    notes = under_their_names(handed, source, copy=False)  # the class report only looks: nothing written
    assert sorted(p.name for p in handed.iterdir()) == before
    assert under_their_names(handed, source) == notes
    assert notes == {"03_softmax_and_mix.ipynb": "handed in as 'softmax (2).ipynb': graded under its own name",
                     "06_blockwise.ipynb": "handed in as 'unzipped/06_blockwise.ipynb': graded under its own name",
                     "08_check_yourself.ipynb": "graded as handed in under its own name; '08_check_yourself-Copy1.ipynb' "
                                                "holds its cells too, and is not graded",
                     "09_model_explorer.ipynb": "handed in as '09_MODEL_EXPLORER.IPYNB': graded under its own name"}
    assert (handed / "03_softmax_and_mix.ipynb").read_bytes() == (handed / "softmax (2).ipynb").read_bytes()
    assert not outside.exists() and not (handed / "05_masks_and_cross_attention.ipynb").exists()
    assert not (handed / "07_cost.ipynb").exists() and not (handed / "01_worked_example.ipynb").exists()
    assert under_their_names(handed, source) == notes  # run again: the same, nothing copied twice
    (handed / "03_softmax_and_mix.ipynb").unlink()  # as if killed while copying: a half copy beside it
    (handed / ".03_softmax_and_mix.ipynb.partial").write_text('{"cells": [')
    assert under_their_names(handed, source) == notes
    assert (handed / "03_softmax_and_mix.ipynb").read_bytes() == (handed / "softmax (2).ipynb").read_bytes()
    assert not (handed / ".03_softmax_and_mix.ipynb.partial").exists()


def test_points_the_instructor_changed_since_the_release_are_no_students_tampering():
    """README's recipe (points in course.toml, `make release`) changes the source's points: every hand-in of the
    earlier release then carried other points, and every student was named as changing read-only cells, in the
    log, the class report and their own feedback. Points a student changed still are named."""
    from autograder.handed_in import tampering

    released = json.loads((ROOT / "assignments" / "attention" / "03_softmax_and_mix.ipynb").read_text(encoding="utf-8"))
    source = json.loads((ROOT / "source" / "attention" / "03_softmax_and_mix.ipynb").read_text(encoding="utf-8"))
    for cell in source["cells"]:  # the instructor gives every graded cell one point more
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("points") is not None:
            meta["points"] += 1
    assert tampering(released, source) == []
    edited = copy.deepcopy(released)
    hidden = next(c for c in edited["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "hidden_softmax")
    hidden["metadata"]["nbgrader"]["points"] = 300
    assert tampering(edited, source) == ["hidden_softmax metadata changed"]
