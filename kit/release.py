"""Make the student release: `python -m kit.release`.

1. build ``source/attention/*.ipynb`` from ``notebooks/attention/*.py``;
2. put beside them what the notebooks import: ``judge.py`` (the comparison
   policy, from autograder/), ``workbook.py`` and ``worked_example.npz`` (the
   visible checks' cases, computed from the reference), and the Model
   Explorer students start in their folder (``python explorer.py``, on their
   own attention: ``explorer.py``, ``explorer_server.py`` and the page);
3. run ``nbgrader generate_assignment --no-db`` into ``assignments/attention``
   (files only: the gradebook is never touched, so a gradebook that already
   holds submissions can never make nbgrader delete the release);
4. record the notebooks, their cells and points in the gradebook (the same
   command into a scratch folder, so a refusal there leaves the release alone).

The gradebook is checked first: when it does not answer, nothing is written.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from autograder.cases import visible_cases
from autograder.judge import save_cases
from kit import nbgrader_cli
from kit.course import ROOT, db_url
from kit.gradebook import require_gradebook
from kit.notebooks import build_all

ASSIGNMENT = "attention"


def build_source(root: Path = ROOT) -> Path:
    """Write everything in source/<assignment>/ that is generated."""
    source = root / "source" / ASSIGNMENT
    build_all(ASSIGNMENT, root)
    shutil.copyfile(root / "autograder" / "judge.py", source / "judge.py")
    # Helpers and data the notebooks load, and the explorer page students start here (links are followed).
    for pattern in ("[a-z]*.py", "[a-z]*.npz", "[a-z]*.html", "[a-z]*.js"):
        for helper in (root / "notebooks" / ASSIGNMENT).glob(pattern):
            shutil.copyfile(helper, source / helper.name)
    save_cases(source / "worked_example.npz", visible_cases())
    return source


def generate_release(root: Path = ROOT) -> Path:
    """Run nbgrader generate_assignment without the gradebook; returns the release folder."""
    nbgrader_cli.run("generate_assignment", ASSIGNMENT, "--force", "--no-db", "--log-level=WARN", cwd=root, check=True)
    release = root / "assignments" / ASSIGNMENT
    for stray in release.rglob("__pycache__"):
        shutil.rmtree(stray)
    return release


def register_in_gradebook(root: Path = ROOT) -> None:
    """Record the assignment's notebooks, cells and points in the gradebook.

    nbgrader refuses when the set of notebooks changed after students submitted;
    its message is raised as a RuntimeError and the release is untouched.
    """
    with tempfile.TemporaryDirectory() as scratch:
        result = nbgrader_cli.run("generate_assignment", ASSIGNMENT, "--force",
                                  f"--CourseDirectory.release_directory={scratch}", "--log-level=ERROR",
                                  cwd=root, capture_output=True, text=True)
    if result.returncode:
        errors = [line for line in result.stderr.splitlines() if "ERROR" in line]
        raise RuntimeError("gradebook not updated: " + (errors[0] if errors else result.stderr[-500:]))


def main() -> None:
    require_gradebook(db_url())
    print("source :", build_source().relative_to(ROOT))
    print("release:", generate_release().relative_to(ROOT))
    register_in_gradebook()
    print("gradebook: notebooks, cells and points recorded")


if __name__ == "__main__":
    main()
