"""Build the instructor notebooks in ``source/`` from readable percent scripts.

The exercises are written as ``notebooks/<assignment>/<name>.py`` files, one
cell per ``# %%`` header, so that a change reads as an ordinary diff. The
header says what nbgrader should make of the cell:

    # %% [markdown]                 prose; lines start with "# "
    # %%                            code the student may edit freely
    # %% setup                      read-only set-up code (imports, data); also
                                    run when another notebook or a grader loads
                                    this notebook's answers
    # %% locked                     read-only code (demonstrations)
    # %% solution id=<exercise>     an exercise: solution code between
                                    ### BEGIN SOLUTION / ### END SOLUTION;
                                    followed in the notebook by its graded cells,
                                    check_<exercise> (the visible check, under
                                    the entry's `shows`) and hidden_<exercise>,
                                    unless the script writes them itself
    # %% tests id=<grade_id>        a graded, read-only cell written by hand (a
                                    check cell unlike the usual two); its points
                                    are the registry's (autograder/exercises/),
                                    or course.toml's [points] where it names them
    # %% [markdown] written id=<grade_id>
                                    a written question, graded by hand (kit/written.py):
                                    the question, then its rubric between
                                    ### BEGIN MARK SCHEME / ### END MARK SCHEME;
                                    it becomes a read-only nbgrader task cell worth
                                    its rubric's points, followed by the student's
                                    answer cell (YOUR ANSWER HERE)

The output is a clean notebook (no outputs, no execution counts) with
nbgrader's schema-3 metadata on every cell that nbgrader must know.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograder.handed_in import ANSWER_STUB, answer_cell_id
from kit.course import ASSIGNMENT, ROOT, policy
from kit.written import points as rubric_points

HEADER = re.compile(r"^# %%(?: \[(?P<type>markdown)\])?(?P<rest>.*)$")
KINDS = {"", "setup", "locked", "solution", "tests", "written"}


def course_points(root: Path = ROOT) -> dict[str, float]:
    """grade_id → points of every graded cell: the registry's (autograder/exercises/),
    each overridden by course.toml's optional ``[points]`` table where it names the cell.

    The one place the two are merged: the release, the tests and the docs read points here.
    """
    from autograder.exercises import points  # the registry imports answer keys: only when points are asked for

    declared = points()
    override = policy(root).get("points", {})
    unknown = sorted(set(override) - set(declared))
    if unknown:
        raise ValueError(f"course.toml [points] names cells no exercise has: {unknown} "
                         "(check_<exercise> or hidden_<exercise> of autograder/exercises/)")
    return {**declared, **override}


def _cells(text: str):
    """Yield (cell_type, kind, options, source) for each ``# %%`` block."""
    header, lines = None, []
    for line in text.splitlines() + ["# %% [end]"]:
        match = HEADER.match(line)
        if not match and line != "# %% [end]":
            lines.append(line)
            continue
        if header is not None:
            yield (*header, "\n".join(lines).strip("\n"))
        if line == "# %% [end]":
            break
        words = match["rest"].split()
        kind = words[0] if words and "=" not in words[0] else ""
        options = dict(w.split("=", 1) for w in words if "=" in w)
        header, lines = ("markdown" if match["type"] else "code", kind, options), []


def graded_cells(exercise: str, shows: str, points: dict[str, float], written: set[str]):
    """Yield (cell_type, kind, options, source) of the exercise's graded cells the script leaves out:
    its visible check (`shows`, the registry's words for its cases, as a comment above the call) and its
    hidden check, each where the registry gives it points and the script does not write it (`written`)."""
    check, hidden = f"check_{exercise}", f"hidden_{exercise}"
    if check in points and check not in written:
        comment = "".join(f"# {line}".rstrip() + "\n" for line in shows.splitlines())
        yield "code", "tests", {"id": check}, f'{comment}check("{exercise}", {exercise})'
    if hidden in points and hidden not in written:
        yield "code", "tests", {"id": hidden}, (
            f"# The hidden checks of {exercise} run here when your work is graded.\n"
            f"### BEGIN HIDDEN TESTS\nfrom autograder.incell import hidden_check\n"
            f'hidden_check("{exercise}", {exercise})\n### END HIDDEN TESTS')


def _expanded(cells: list, shows: dict[str, str], points: dict[str, float]):
    """The script's cells, each exercise's solution cell followed by the graded cells it leaves out."""
    written = {options.get("id") for _, kind, options, _ in cells if kind == "tests"}
    for cell in cells:
        yield cell
        _, kind, options, _ = cell
        if kind == "solution" and options.get("id") in shows:
            yield from graded_cells(options["id"], shows[options["id"]], points, written)


def _markdown(source: str) -> str:
    return "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in source.splitlines())


def written_question(script: Path, cell_type: str, options: dict, text: str) -> list:
    """A written question's two cells: the task cell (question and rubric, read-only, worth the
    rubric's points) and the answer cell the student writes in."""
    if cell_type != "markdown" or "id" not in options:
        raise ValueError(f"{script.name}: a written question is a markdown cell with an id")
    try:
        worth = rubric_points(text)
    except ValueError as e:
        raise ValueError(f"{script.name}: {options['id']}: {e}") from None
    task = nbformat.v4.new_markdown_cell(text, id=options["id"])
    task.metadata["nbgrader"] = {"grade": False, "grade_id": options["id"], "locked": True, "points": worth,
                                 "schema_version": 3, "solution": False, "task": True}
    return [task, nbformat.v4.new_markdown_cell(ANSWER_STUB, id=answer_cell_id(options["id"]))]


def build_notebook(script: Path, points: dict[str, float], shows: dict[str, str] | None = None) \
        -> nbformat.NotebookNode:
    """The instructor notebook of a percent script. points: grade id → points; shows: exercise → the
    registry's words for its visible cases (its solution cell is followed by its graded cells)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.metadata.language_info = {"name": "python"}
    for cell_type, kind, options, source in _expanded(list(_cells(script.read_text())), shows or {}, points):
        if kind not in KINDS:
            raise ValueError(f"{script.name}: unknown cell kind {kind!r}")
        if kind == "written":
            nb.cells += written_question(script, cell_type, options, _markdown(source))
            continue
        if cell_type == "markdown":
            cell = nbformat.v4.new_markdown_cell(_markdown(source))
        else:
            cell = nbformat.v4.new_code_cell(source)
        if kind:
            grade_id = options.get("id") or f"{kind}_{script.stem[:2]}_{len(nb.cells)}"
            meta = {"grade": kind == "tests", "grade_id": grade_id, "locked": kind != "solution",
                    "schema_version": 3, "solution": kind == "solution", "task": False}
            if kind == "tests":
                if grade_id not in points:
                    raise ValueError(f"{script.name}: no exercise of autograder/exercises/ has the graded cell {grade_id!r}")
                meta["points"] = points[grade_id]
            cell.metadata["nbgrader"] = meta
        cell.id = re.sub(r"[^A-Za-z0-9-_]", "-", options.get("id", f"cell-{len(nb.cells)}"))
        nb.cells.append(cell)
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    duplicated = {i for i in ids if ids.count(i) > 1}
    if duplicated:
        raise ValueError(f"{script.name}: grade ids used twice: {sorted(duplicated)}")
    nbformat.validate(nb)
    return nb


def build_all(assignment: str = ASSIGNMENT, root: Path = ROOT) -> list[Path]:
    """Write ``source/<assignment>/*.ipynb`` from ``notebooks/<assignment>/*.py``."""
    from autograder.exercises import check_descriptions

    points, shows = course_points(root), check_descriptions()
    out_dir = root / "source" / assignment
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for script in sorted((root / "notebooks" / assignment).glob("[0-9]*.py")):
        target = out_dir / f"{script.stem}.ipynb"
        target.write_text(nbformat.writes(build_notebook(script, points, shows)) + "\n")
        written.append(target)
    return written
