"""Make the student release: `python -m kit.release`.

1. write what is derived from the exercise registry (autograder/exercises/):
   ``autograder/judge/built_on.json`` (what each exercise is built on, read by
   the judge) and build ``source/attention/*.ipynb`` from
   ``notebooks/attention/*.py`` with the registry's points;
2. put beside them what the notebooks import: the ``judge/`` folder (the
   comparison policy and the visible checks, from autograder/judge/, with its
   ``built_on.json``), ``workbook.py``, the ``figures/`` folder (one module per
   notebook's figures, from notebooks/attention/figures/) with its
   ``notebook_of.json`` (which notebook asks for each exercise, for its
   placeholders) and
   ``worked_example.npz`` (the visible checks' cases, computed from the
   reference), and the Model Explorer students start in their folder
   (``python explorer.py``, on their own attention: ``explorer.py``,
   ``explorer_server.py`` and the page);
3. run ``nbgrader generate_assignment --no-db`` into ``assignments/attention``
   (files only: the gradebook is never touched, so a gradebook that already
   holds submissions can never make nbgrader delete the release);
4. record the notebooks, their cells and points in the gradebook (the same
   command into a scratch folder, so a refusal there leaves the release alone),
   and course.toml's due date (the late penalty needs it).

The gradebook is checked first: when it does not answer, nothing is written.
`make demo` calls `release_if_changed`, which does 1-3 only when the content
of their inputs or outputs differs from the last build's (a hash, never a
timestamp), and 4 only when the gradebook does not already hold those cells.
nbgrader's commands run in this process (kit.nbgrader_cli.run_here).
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, ROOT, course, db_url
from kit.nbgrader_glue.reachable import require_gradebook
from kit.notebooks import build_all

# Everything the generated folders are made from (folders count with all their files).
INPUTS = ("notebooks", "course.toml", "nbgrader_config.py", "autograder", "solutions", "model",
          "kit/notebooks.py", "kit/written.py", "kit/release.py", "pyproject.toml")
OUTPUTS = ("source", "assignments")
STAMP = Path(".run") / "release.sha256"  # the last build's hash, under the course root
BUILT_ON = Path("autograder") / "judge" / "built_on.json"  # the judge reads it (the contract with autograder/judge)
FIGURES = "figures"  # the folder of the figures' package, in notebooks/<assignment>/ and in the release
NOTEBOOK_OF = Path(FIGURES) / "notebook_of.json"  # in the release's figures/, where placeholders.py reads it


def as_json(data: dict) -> str:
    """The generated files' form: keys sorted, one item a line, a final newline."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def write_built_on(root: Path = ROOT) -> Path:
    """Write autograder/judge/built_on.json from the registry: {exercise: [what it is built on, ...]}."""
    from autograder.exercises import built_on

    path = root / BUILT_ON
    path.parent.mkdir(exist_ok=True)
    path.write_text(as_json(built_on()))
    return path


def build_source(root: Path = ROOT) -> Path:
    """Write everything in source/<assignment>/ that is generated."""
    from autograder.cases import visible_cases  # computes from the reference: only when building
    from autograder.exercises import notebook_of

    source = root / "source" / ASSIGNMENT
    write_built_on(root)
    build_all(ASSIGNMENT, root)
    copy_package(root / "autograder" / "judge", source)
    copy_package(root / "notebooks" / ASSIGNMENT / FIGURES, source)
    (source / NOTEBOOK_OF).write_text(as_json(notebook_of()))
    # Helpers and data the notebooks load, and the explorer page students start here (links are followed).
    for pattern in ("[a-z]*.py", "[a-z]*.npz", "[a-z]*.html", "[a-z]*.js"):
        for helper in (root / "notebooks" / ASSIGNMENT).glob(pattern):
            shutil.copyfile(helper, source / helper.name)
    write_cases(source / "worked_example.npz", visible_cases())
    return source


def copy_package(package: Path, into: Path) -> None:
    """Copy the folder `package` into `into`, in place of the copy there: a file it no longer has must not
    stay behind."""
    shutil.rmtree(into / package.name, ignore_errors=True)
    shutil.copytree(package, into / package.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def write_cases(path: Path, cases: list) -> None:
    """Save `cases` to `path`, keeping the file already there when it holds the same cases but for rounding.

    The explorer's cases are the trained model's float32 products: another CPU's BLAS rounds them
    differently, in the last bits. Kept, the committed file (and so the release built from it) is
    the same on every machine; any other change (a value beyond rounding, a shape, a label) rewrites it.
    """
    from autograder.judge import load_cases, save_cases

    fresh = io.BytesIO()
    save_cases(fresh, cases)
    if path.exists() and same_but_rounding(load_cases(path), load_cases(io.BytesIO(fresh.getvalue()))):
        return
    path.write_bytes(fresh.getvalue())


def same_but_rounding(a, b) -> bool:
    """Are `a` and `b` (cases as `load_cases` reads them) equal, floats allowed to differ by the comparison
    policy's float32 tolerance (|a - b| ≤ tol · max(1, |b|), NaN and ±inf in the same places)?"""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_but_rounding(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same_but_rounding, a, b))
    if isinstance(a, np.ndarray) and (a.shape != b.shape or a.dtype != b.dtype):
        return False
    if isinstance(a, float) or isinstance(a, np.ndarray) and a.dtype.kind == "f":
        from autograder.judge.policy import relative_error, tolerance

        return bool(np.all(relative_error(np.asarray(a), np.asarray(b)) <= tolerance(np.float32)))
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return a == b


def generate_release(root: Path = ROOT) -> Path:
    """Run nbgrader generate_assignment without the gradebook; returns the release folder."""
    nbgrader_cli.run_here("generate_assignment", ASSIGNMENT, "--force", "--no-db", "--log-level=WARN", cwd=root)
    release = root / "assignments" / ASSIGNMENT
    for stray in release.rglob("__pycache__"):
        shutil.rmtree(stray)
    return release


def register_in_gradebook(root: Path = ROOT) -> None:
    """Record the assignment's notebooks, cells and points, and course.toml's due date, in the gradebook.

    nbgrader refuses when the set of notebooks changed after students submitted;
    its message is raised as a RuntimeError and the release is untouched.
    """
    with tempfile.TemporaryDirectory() as scratch:
        try:
            nbgrader_cli.run_here("generate_assignment", ASSIGNMENT, "--force",
                                  f"--CourseDirectory.release_directory={scratch}", "--log-level=ERROR", cwd=root)
        except nbgrader_cli.NbgraderFailed as failed:
            errors = [line for line in str(failed).splitlines() if "ERROR" in line]
            raise RuntimeError("gradebook not updated: " + (errors[0] if errors else str(failed)[-500:])) from None
    with Gradebook(db_url(root), COURSE_ID) as gb:  # after: nbgrader's registration leaves no due date
        gb.update_or_create_assignment(ASSIGNMENT, duedate=course(root).duedate)


def content_hash(root: Path, paths: tuple[str, ...]) -> str:
    """SHA-256 over the names and bytes of every file under `paths` (caches left out)."""
    digest = hashlib.sha256()
    for name in paths:
        top = root / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_hash(root: Path) -> str:
    import nbgrader

    return f"{content_hash(root, INPUTS)} {content_hash(root, OUTPUTS)} nbgrader {nbgrader.__version__}"


def _gradebook_holds(root: Path) -> bool:
    """Does the gradebook hold this release's notebooks, graded cells and written questions with their
    points, and due date?"""
    from autograder.source_assignment import SourceAssignment
    from kit.written import written_questions

    source = root / "source" / ASSIGNMENT
    expected = {(nb.removesuffix(".ipynb"), cell, points)
                for nb, cell, points in SourceAssignment.of(source).graded_cells + written_questions(source)}
    with Gradebook(db_url(root), COURSE_ID) as gb:
        try:
            assignment = gb.find_assignment(ASSIGNMENT)
        except MissingEntry:
            return False
        recorded = {(nb.name, cell.name, cell.max_score) for nb in assignment.notebooks
                    for cell in nb.grade_cells + nb.task_cells}
        due = assignment.duedate
    return recorded == expected and due == parse_utc(course(root).duedate)


def release_if_changed(root: Path = ROOT) -> bool:
    """Steps 1-4, each only if its result would differ; returns whether the release was rebuilt."""
    require_gradebook(db_url(root))
    stamp = root / STAMP
    rebuilt = not stamp.exists() or stamp.read_text() != build_hash(root)
    if rebuilt:
        build_source(root)
        generate_release(root)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(build_hash(root))
    if rebuilt or not _gradebook_holds(root):
        register_in_gradebook(root)
    return rebuilt


def main() -> None:
    require_gradebook(db_url())
    print("source :", build_source().relative_to(ROOT))
    print("release:", generate_release().relative_to(ROOT))
    register_in_gradebook()
    (ROOT / STAMP).parent.mkdir(exist_ok=True)
    (ROOT / STAMP).write_text(build_hash(ROOT))
    print(f"gradebook: notebooks, cells and points recorded, due {course().duedate}")


if __name__ == "__main__":
    main()
