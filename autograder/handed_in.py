"""A handed-in notebook against its source: read it, tell whether it is this
assignment's, say what was done to its read-only cells, and restore them.

The student's notebook is untrusted JSON: `read_notebook` says in plain words
why one cannot be read, `wrong_notebook` why it is not this assignment's at
all, `tampering` what the student changed among the read-only cells, and
`restore_locked_cells` rebuilds it from the source with only the student's
answers (and code cells of their own) in it. Nothing here runs student code.

A written answer (kit/written.py) is a task cell, read-only, that holds the
question and, in the source only, its rubric (a mark-scheme region), followed
by a markdown answer cell without nbgrader metadata, found by its cell id
(`answer_cell_id`): `written_answers` says what the student wrote there.

One job, kept whole past 250 lines: a handed-in notebook read against its source cell by cell; reading,
telling, tampering, restoring and the written answers all match its cells to the source's (`grade_id`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from autograder.judge.cells import bound_names
from autograder.malformed import AGAIN, cell_named, malformed, unshaped_cell
from autograder.source_assignment import SourceAssignment
from autograder.whole_file import write_bytes_whole

HIDDEN_TESTS = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.DOTALL)
# nbgrader's ClearMarkScheme drops every line from the one naming BEGIN MARK SCHEME to the one naming END.
MARK_SCHEME = re.compile(r"^[^\n]*BEGIN MARK SCHEME.*?END MARK SCHEME[^\n]*(?:\n|$)", re.DOTALL | re.M)
ANSWER_STUB = "YOUR ANSWER HERE"  # a written answer cell as released (nbgrader's own text stub)


def answer_cell_id(task_id: str) -> str:
    """The cell id of the answer cell that follows the written question (task cell) `task_id`."""
    return f"{task_id}-answer"


# Byte-order marks an editor outside Jupyter may put before a notebook's JSON (Notepad, PowerShell's
# Set-Content and Out-File), which Jupyter, reading UTF-8 text, cannot open either: named, as the student sees
# no fault in the JSON itself.
BYTE_ORDER_MARKS = {b"\xef\xbb\xbf": "UTF-8", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


def read_notebook(path: Path) -> dict:
    """The notebook's JSON, or ValueError saying in plain words why it cannot be read."""
    with open(path, "rb") as file:
        start = file.read(3)
    mark = next((mark for mark in BYTE_ORDER_MARKS if start.startswith(mark)), None)
    if mark is not None:
        raise ValueError(f"notebook unreadable: it begins with a {BYTE_ORDER_MARKS[mark]} byte-order mark, which "
                         "Jupyter cannot open: save it again from JupyterLab, or as UTF-8 without a byte-order mark")
    try:
        text = path.read_text(encoding="utf-8")
        nb = json.loads(text)
    except UnicodeDecodeError as e:
        raise ValueError(f"notebook unreadable: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"notebook unreadable: not valid JSON at line {e.lineno}") from None
    except ValueError as e:  # an integer of more digits than Python converts
        raise ValueError(f"notebook unreadable: {e}") from None
    except RecursionError:
        raise ValueError("notebook unreadable: its JSON is nested too deeply to read") from None
    if isinstance(nb, dict) and isinstance(nb.get("nbformat"), int) and nb["nbformat"] < 4:
        raise ValueError(f"notebook unreadable: it is in version {nb['nbformat']} of the notebook format, which "
                         "Jupyter wrote before 2015 and the grader does not read: open it in JupyterLab, save it "
                         "(JupyterLab saves version 4), and hand in again")
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("notebook unreadable: no list of cells")
    if where := unshaped_cell(nb["cells"]):
        raise ValueError(f"notebook unreadable: {where}, so it cannot be graded {AGAIN}")
    if SURROGATE_ESCAPE.search(text) and (where := _lone_surrogate(nb)):
        raise ValueError(f"notebook unreadable: {where} holds a broken character (half of a UTF-16 surrogate pair, "
                         "an escape from \\uD800 to \\uDFFF in the file's JSON) that UTF-8 text cannot hold, so "
                         "Jupyter cannot save this notebook either: delete that character (Jupyter shows it as "
                         "\ufffd), save, and hand in again")
    return nb


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # JSON's escape of a surrogate, lone or in a pair


def _lone_surrogate(nb: dict) -> str | None:
    """Where `nb` holds a lone surrogate, which JSON's escapes allow and UTF-8 cannot encode ("cell 3", "its
    metadata"), or None."""
    def holds(part) -> bool:
        try:
            json.dumps(part, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False

    found = next((k for k, cell in enumerate(nb["cells"], start=1) if holds(cell)), None)
    if found is not None:
        return cell_named(nb["cells"], found)
    return "its metadata" if holds({key: value for key, value in nb.items() if key != "cells"}) else None


UNREADABLE = ".unreadable"  # a notebook set aside: <name>.ipynb.unreadable, beside where it was
MISSING = "notebook missing"  # a grading report's problem for a notebook neither handed in nor copied to its name
MISNAMED_BYTES = 256 << 20  # a notebook handed in under another name is read only up to this size


def _read_as_nbgrader_would(path: Path) -> None:
    """ValueError, in plain words, if nbgrader could not read `path` as a notebook: if `nbformat.read(path,
    as_version=4)` would raise. Its check against the schema is left out: it only logs, as nbgrader reads the
    notebook again to convert it."""
    read_notebook(path)
    import nbformat  # only here: grading itself reads notebooks without it

    try:
        nbformat.convert(nbformat.reader.reads(path.read_text(encoding="utf8")), 4)
    except Exception as e:  # nbformat's own errors take many types
        where = malformed(read_notebook(path))
        if where is None:
            raise ValueError(f"notebook unreadable: {type(e).__name__}: {e}") from None
        raise ValueError(f"notebook unreadable: {where}, so nbgrader cannot read it {AGAIN}") from None


def set_aside_unreadable(folder: Path) -> dict[str, str]:
    """Move each notebook of the handed-in `folder` that cannot be read beside itself
    (``<name>.ipynb.unreadable``): nbgrader then scores it as missing and grades the rest of the
    student's work. Returns notebook → why, for those set aside now or by an earlier run."""
    for path in sorted(Path(folder).glob("*.ipynb")):
        try:
            _read_as_nbgrader_would(path)
        except ValueError:
            path.replace(path.with_name(path.name + UNREADABLE))
    return set_aside(folder)


def set_aside(folder: Path) -> dict[str, str]:
    """Notebook → why it is unreadable, for the notebooks set aside in a handed-in `folder` (read only)."""
    problems = {}
    for path in sorted(Path(folder).glob(f"*.ipynb{UNREADABLE}")):
        try:
            _read_as_nbgrader_would(path)
            problems[path.name.removesuffix(UNREADABLE)] = "notebook set aside as unreadable"
        except ValueError as e:
            problems[path.name.removesuffix(UNREADABLE)] = str(e)
    return problems


def under_their_names(folder: Path, source: SourceAssignment, copy: bool = True) -> dict[str, str]:
    """Give each notebook of the assignment missing from the handed-in `folder` the one handed in under another
    name that holds its cells (a download's `03_softmax_and_mix (1).ipynb`, Jupyter's `-Copy1`, a name of the
    student's own, a folder a zip was unpacked into): a copy of it under the notebook's name, which nbgrader
    grades; the student's file is kept as it is. A handed-in notebook holds a source notebook's cells when it has
    at least half of its nbgrader cell ids; it is taken for the one whose ids it holds most of, and only when no
    other handed-in notebook holds that one's. Where the notebook is handed in under its own name, that one is
    graded, and other hand-ins holding its cells are named as not graded (a `-Copy1`, a second download).
    Returns notebook → what was done (now or by an earlier run, whose copy is still the student's file) or why not.
    Unreadable notebooks are set aside first (`set_aside_unreadable`). copy=False only looks (the class report):
    a copy not made yet is named as one autograde makes."""
    folder = Path(folder)
    wanted = {name: {i for cell in nb["cells"] if (i := grade_id(cell))} for name, nb in source.notebooks.items()}
    others = {}
    for path in _handed_in_notebooks(folder):
        name = path.relative_to(folder).as_posix()
        if name not in wanted:
            try:
                _read_as_nbgrader_would(path)  # copied, it must not fail the student's autograde
                others[name] = (path.read_bytes(), {i for cell in read_notebook(path)["cells"] if (i := grade_id(cell))})
            except (OSError, ValueError):
                continue
    holders: dict[str, list[str]] = {}
    for other, (_, ids) in others.items():
        shares = {name: len(ids & wanted_ids) / len(wanted_ids) for name, wanted_ids in wanted.items() if wanted_ids}
        best = max(shares, key=shares.get, default=None)
        if best is not None and shares[best] >= 0.5:
            holders.setdefault(best, []).append(other)
    notes = {}
    for name, found in sorted(holders.items()):
        path = folder / name
        if os.path.lexists(path):  # handed in under its name too, or copied by an earlier run
            own = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            copied = [other for other in found if others[other][0] == own]
            if copied:
                notes[name] = f"handed in as {copied[0]!r}: graded under its own name"
            elif own is not None:  # the student's own copy beside it (a `-Copy1`, a second download): not graded
                one = len(found) == 1
                notes[name] = (f"graded as handed in under its own name; {', '.join(map(repr, found))} "
                               f"{'holds' if one else 'hold'} its cells too, and {'is' if one else 'are'} not graded")
        elif len(found) > 1:
            notes[name] = (f"missing: {len(found)} notebooks handed in hold its cells ({', '.join(map(repr, found))}), "
                           f"so none is graded for it: hand in one as {name}")
        else:
            if copy:
                write_bytes_whole(path, others[found[0]][0])
            notes[name] = f"handed in as {found[0]!r}: graded under its own name"
    return notes


def _handed_in_notebooks(folder: Path) -> list[Path]:
    """The notebooks (regular files, not links, of at most MISNAMED_BYTES) in `folder` and in its folders one level
    down (a zip unpacked into a folder of its own), leaving out hidden folders (Jupyter's .ipynb_checkpoints) and
    links to folders."""
    def entries(at) -> list[os.DirEntry]:
        try:  # a folder the student made unreadable, or gone: nothing in it
            return sorted(os.scandir(at), key=lambda e: e.name)
        except OSError:
            return []

    def small_notebook(entry: os.DirEntry) -> bool:
        try:
            return entry.name.lower().endswith(".ipynb") and entry.is_file(follow_symlinks=False) and \
                entry.stat(follow_symlinks=False).st_size <= MISNAMED_BYTES
        except OSError:
            return False
    top = entries(folder)
    return [Path(e.path) for e in top if small_notebook(e)] + [
        Path(inner.path) for e in top if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
        for inner in entries(e.path) if small_notebook(inner)]


def grade_id(cell) -> str | None:
    """The nbgrader grade_id of a cell, or None (a cell of the student's own, or not a cell at all, or an id
    that is not text: no cell of the source has it)."""
    meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
    found = meta.get("grade_id") if isinstance(meta, dict) else None
    return found if isinstance(found, str) else None


STUB = "raise NotStarted()"


def restore_locked_cells(student: dict, source: dict, answers_only: bool = False) -> dict:
    """The source notebook with the student's answers in its answer cells.

    Everything read-only comes from the source, whatever the student did to it
    (edited, deleted, retyped, duplicated, metadata changed). An answer cell
    the student deleted, or made markdown or raw (it no longer runs in their
    notebook), becomes the stub, never the source's solution (a retyped one's stub says so: `_stub`); of one they
    duplicated, the copy its check runs on (`answer_sources`). Code
    cells of the student's own (no nbgrader metadata: helpers, the free
    prompt cell) are kept, each before the nbgrader cell it came before.
    A written answer cell holds what the student wrote for it (`written_answers`), the stub if nothing.
    answers_only: keep only set-up, answer and the student's own code cells (what grading runs).
    """
    answers = answer_sources(student, source)
    retyped = {gid: cell.get("cell_type") for cell in student["cells"] if _is_cell(cell) and (gid := grade_id(cell))
               and gid not in answers and cell.get("cell_type") in ("markdown", "raw")}
    written = written_answers(student, source)
    own = _own_cells(student)
    cells = []
    for cell in source["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id", "")
        cells += own.pop(gid, []) if gid else []
        if not meta and cell.get("cell_type") == "code":
            continue  # a free cell: the student's copy of it is among their own
        if cell.get("id") in written:
            cell = {**cell, "source": written[cell["id"]]}
        elif meta.get("solution"):
            cell = {**cell, "source": answers[gid] if gid in answers else _stub(gid, retyped.get(gid))}
        elif answers_only and not gid.startswith("setup_"):
            continue
        cells.append(cell)
    return {**source, "cells": cells + [c for rest in own.values() for c in rest]}


def _stub(gid: str, retyped: str | None) -> str:
    """The stub graded for an answer not given; where the student's answer cell is markdown or raw, one whose
    NotStarted says so (their code is there, but never runs in their notebook)."""
    if retyped is None:
        return STUB
    why = (f"your answer cell for {gid} is a {retyped} cell in your notebook, so its code never runs: make it a "
           f"code cell again (in JupyterLab: Esc, then Y), run it, and hand in again")
    return f"raise NotStarted({why!r})"


def answer_sources(student: dict, source: dict) -> dict:
    """Grade id → the source of the student's code cell of that id, as their notebook runs top to bottom.

    Of an answer cell's copies (a cell duplicated to try again), the last above the check that follows it
    in the source notebook: the one that check runs on. The first where none is above it, or the answer
    has no check."""
    first_at: dict[str, int] = {}
    copies: dict[str, list] = {}
    for index, cell in enumerate(student["cells"]):
        gid = grade_id(cell)
        if not gid:
            continue
        first_at.setdefault(gid, index)
        if cell.get("cell_type") == "code":
            copies.setdefault(gid, []).append((index, cell.get("source", "")))
    check_of, unchecked = {}, []  # answer → the first graded cell after it in the source
    for cell in source["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade"):
            check_of |= dict.fromkeys(unchecked, meta.get("grade_id"))
            unchecked = []
        elif meta.get("solution"):
            unchecked.append(meta.get("grade_id"))
    answers = {}
    for gid, found in copies.items():
        check = first_at.get(check_of.get(gid), -1)
        above = [text for index, text in found if index < check]
        answers[gid] = above[-1] if above else found[0][1]
    return answers


def _is_cell(cell) -> bool:
    return isinstance(cell, dict) and isinstance(cell.get("metadata", {}), dict)


def _index(cells: list, found) -> int | None:
    """The index of the first cell of `cells` for which found(cell) holds, or None."""
    return next((i for i, cell in enumerate(cells) if _is_cell(cell) and found(cell)), None)


def written_answers(student: dict, source: dict) -> dict[str, str]:
    """Answer cell id → what the student wrote for each written question of `source` they answered.

    Their answer cell, found by its id wherever it is, with the markdown cells of their own right
    after it (an answer continued in a new cell); if they deleted the answer cell, the markdown
    cells of their own right after the question. Cells of their own: no nbgrader metadata, and an
    id the source does not use.
    """
    source_ids = {cell.get("id") for cell in source["cells"]}
    cells = student["cells"]
    found = {}
    for task in source["cells"]:
        if not task.get("metadata", {}).get("nbgrader", {}).get("task"):
            continue
        answer_id = answer_cell_id(task["metadata"]["nbgrader"]["grade_id"])
        at = _index(cells, lambda c: c.get("id") == answer_id and c.get("cell_type") == "markdown")
        parts = [] if at is None else [cell_text(cells[at])]
        at = at if at is not None else _index(cells, lambda c: grade_id(c) == grade_id(task))
        if at is None:
            continue
        for cell in cells[at + 1:]:
            if not _is_cell(cell) or cell.get("cell_type") != "markdown" or "nbgrader" in cell["metadata"] \
                    or cell.get("id") in source_ids:
                break
            parts.append(cell_text(cell))
        if parts:
            found[answer_id] = "\n\n".join(parts)
    return found


def _own_cells(student: dict) -> dict[str | None, list[dict]]:
    """The student's code cells without nbgrader metadata, as clean cells, by the
    grade_id of the nbgrader cell that follows each (None: none follows). A cell whose "nbgrader" metadata
    is no table at all (the student made it a string, a list, null) is one of their own: its code is theirs
    to run, as in their notebook. One whose table names another grade id, or one that is not text, is an
    nbgrader cell not under its own name (tests/shared/adversarial: renames_a_grade_id), never theirs."""
    own: dict[str | None, list[dict]] = {}
    pending: list[dict] = []
    for cell in student["cells"]:
        if not isinstance(cell, dict):
            continue
        if isinstance(cell.get("metadata"), dict) and isinstance(cell["metadata"].get("nbgrader"), dict):
            if pending:
                own.setdefault(grade_id(cell), []).extend(pending)
                pending = []
            continue
        if cell.get("cell_type") == "code":
            number = sum(map(len, own.values())) + len(pending)
            pending.append({"cell_type": "code", "id": f"own-{number}", "metadata": {}, "source": cell_text(cell),
                            "outputs": [], "execution_count": None})
    if pending:
        own.setdefault(None, []).extend(pending)
    return own


def cell_text(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def _as_released(cell: dict) -> str:
    """A cell's text as the student received it: hidden tests and mark schemes removed."""
    return MARK_SCHEME.sub("", HIDDEN_TESTS.sub("", cell_text(cell))).strip()


def wrong_notebook(student: dict, source: dict) -> str | None:
    """Why `student` is not this assignment's notebook at all, or None. A notebook none of whose cells keeps
    nbgrader's metadata is not, even one that defines this notebook's answers (pasted into a new notebook): the
    message then says where to put them."""
    theirs = {grade_id(c) for c in student["cells"]} - {None}
    ours = {grade_id(c) for c in source["cells"]} - {None}
    answers = {c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    pasted = sorted(answers & _defined_names(student)) if student["cells"] and not theirs else []
    if pasted:
        return (f"wrong notebook: none of its cells keeps nbgrader's metadata, though it defines "
                f"{', '.join(pasted[:4])}{' ...' if len(pasted) > 4 else ''} (pasted into a new notebook?): paste "
                f"each answer into its cell of the released notebook and hand that in")
    if student["cells"] and not theirs & ours:
        found = ", ".join(sorted(theirs)[:4]) or "no nbgrader cells"
        return f"wrong notebook: it has none of this notebook's exercises (it has {found})"
    renamed = sorted(g for g in theirs - ours if g and not g.startswith("cell-"))
    if renamed and not answers & theirs:
        return f"wrong notebook: its exercises are renamed ({', '.join(renamed[:4])})"
    return None


def _defined_names(student: dict) -> set[str]:
    """The names the student's code cells define at their top level (def, class, assignment to a name)."""
    names = set()
    for cell in student["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            try:
                names.update(bound_names(cell_text(cell)))
            except TypeError:  # a source that is no text
                continue
    return names


def tampering(student: dict, source: dict) -> list[str]:
    """What the student did to the read-only cells of one notebook, in words."""
    found = []
    by_id: dict[str, list] = {}
    for cell in student["cells"]:
        if grade_id(cell):
            by_id.setdefault(grade_id(cell), []).append(cell)
    for cell in source["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        gid = meta.get("grade_id")
        if not gid:
            continue
        copies = by_id.get(gid, [])
        if meta.get("solution"):
            if copies and _metadata_changed(copies[0], meta):
                found.append(f"{gid} metadata changed")
            continue
        if not copies:
            found.append(f"{gid} deleted")
            continue
        if len(copies) > 1:
            found.append(f"{gid} duplicated")
        theirs = copies[0]
        before = len(found)
        if theirs.get("cell_type") != cell["cell_type"]:
            found.append(f"{gid} retyped as {theirs.get('cell_type')}")
        elif _as_released(theirs) != _as_released(cell):
            found.append(f"{gid} edited")
        if _metadata_changed(theirs, meta):
            found.append(f"{gid} metadata changed")
        if len(found) == before and not _checksum_holds(theirs):
            found.append(f"{gid} checksum changed")
    return found


def _metadata_changed(theirs: dict, meta: dict) -> bool:
    """Does the student's cell say otherwise than the source's nbgrader metadata `meta` on how it is graded? Points
    alone that differ are the instructor's change since the release (README: change the points, `make release`),
    not the student's, where their read-only cell still carries the checksum its release gave it with its points;
    an answer cell's points are never the student's to change (the source's are put back before grading)."""
    their_meta = theirs.get("metadata", {}).get("nbgrader", {})
    if any(their_meta.get(k) != meta.get(k) for k in ("grade", "solution", "locked")):
        return True
    released = "checksum" in their_meta and _checksum_holds(theirs)  # as a release gave it, with its points then
    return their_meta.get("points") != meta.get("points") and not meta.get("solution") and not released


def nbgrader_checksum(cell: dict) -> str:
    """The checksum nbgrader's generate_assignment stores in a cell's metadata (nbgrader.utils.compute_checksum,
    0.9.6): written out here because importing nbgrader costs seconds in every process that grades, and a
    Dask worker starts one per student. tests/confinement/test_handed_in.py checks it against nbgrader's on every cell."""
    meta = cell["metadata"]["nbgrader"]
    grade, solution = meta.get("grade", False), meta.get("solution", False)
    locked = False if solution else True if grade else meta.get("locked", False)
    parts = [cell["source"], cell["cell_type"], str(grade), str(solution), str(locked), meta["grade_id"]]
    if grade:
        parts.append(str(float(meta["points"])))
    return hashlib.md5("".join(parts).encode("utf-8")).hexdigest()


def _checksum_holds(cell: dict) -> bool:
    """Does a cell's nbgrader checksum (if it carries one, as released cells do) match the cell?"""
    stored = cell.get("metadata", {}).get("nbgrader", {}).get("checksum")
    if stored is None:
        return True
    try:
        return nbgrader_checksum({**cell, "source": cell_text(cell)}) == stored
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def restore_for_grading(folder: Path, source: Path, workdir: Path) -> tuple[dict[str, str], list[str]]:
    """Write into `workdir` every notebook of `source` restored around the answers the student
    handed in (in `folder`), with only the cells grading runs (`restore_locked_cells`).

    Returns (notebook → why it could not be graded: missing, unreadable or not
    this notebook; such a notebook is written with no answers), and the
    read-only cells the student changed, in words ("01_x.ipynb: check_f edited").
    """
    problems: dict[str, str] = {}
    changed: list[str] = []
    for name, ours in SourceAssignment.of(source).notebooks.items():
        source_path = source / name
        student_path = folder / name
        if not student_path.exists():
            problems[source_path.name] = MISSING
            student = {"cells": []}
        else:
            try:
                student = read_notebook(student_path)
            except ValueError as e:
                problems[source_path.name] = str(e)
                student = {"cells": []}
        wrong = wrong_notebook(student, ours)
        if wrong:
            problems[source_path.name] = wrong
            student = {"cells": []}
        if source_path.name not in problems:
            changed += [f"{source_path.name}: {t}" for t in tampering(student, ours)]
        restored = restore_locked_cells(student, ours, answers_only=True)
        (workdir / source_path.name).write_text(json.dumps(restored))
    return problems, changed


