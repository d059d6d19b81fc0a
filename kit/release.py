"""Make the student release: `python -m kit.release`.

1. build ``source/attention/*.ipynb`` from ``notebooks/attention/*.py``;
2. put beside them what the notebooks import: ``judge.py`` (the comparison
   policy, from autograder/), ``workbook.py`` and ``worked_example.npz`` (the
   visible checks' cases, computed from the reference);
3. run ``nbgrader generate_assignment`` into ``assignments/attention``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.cases import visible_cases
from autograder.judge import save_cases
from kit.notebooks import ROOT, build_all

ASSIGNMENT = "attention"


def build_source(root: Path = ROOT) -> Path:
    """Write everything in source/<assignment>/ that is generated."""
    source = root / "source" / ASSIGNMENT
    build_all(ASSIGNMENT, root)
    shutil.copyfile(root / "autograder" / "judge.py", source / "judge.py")
    for helper in (root / "notebooks" / ASSIGNMENT).glob("[a-z]*.py"):
        shutil.copyfile(helper, source / helper.name)
    save_cases(source / "worked_example.npz", visible_cases())
    return source


def nbgrader(*args: str, root: Path = ROOT, **kwargs) -> subprocess.CompletedProcess:
    """Run an nbgrader command in the course root with this environment's tools on PATH
    (nbgrader calls `alembic` to set up the gradebook)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, **kwargs)


def generate_release(root: Path = ROOT) -> Path:
    """Run nbgrader generate_assignment; returns the release folder."""
    nbgrader("generate_assignment", ASSIGNMENT, "--force", "--log-level=WARN", root=root, check=True)
    release = root / "assignments" / ASSIGNMENT
    for stray in release.rglob("__pycache__"):
        shutil.rmtree(stray)
    return release


def main() -> None:
    print("source :", build_source().relative_to(ROOT))
    print("release:", generate_release().relative_to(ROOT))


if __name__ == "__main__":
    main()
