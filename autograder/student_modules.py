"""The Python modules a student hands in beside their notebooks, importable while the notebooks are graded.

In JupyterLab a notebook imports a module from its own folder (`from my_helpers
import softmax`), and stock nbgrader grades it there. The grader copies each
such module into the grading child's folder with the restored notebooks, but:

- a module the release has (workbook.py, explorer.py: every student's folder
  holds them), or named as a folder of it (judge): never the student's copy;
  the release's support files are graded with (autograder/submission.py);
- anything but a regular file (a link, a pipe), a name that is no
  identifier, and modules past MODULE_BYTES or MODULES in all (the child's
  folder is small): left where they are, so the notebook's import fails and
  says so.

A module by the name of one Python has (numpy.py, random.py) is copied too, as
JupyterLab would find it, but it cannot run before the student's code is
meant to: the grading child imports NumPy, the judge and everything else it
runs before it puts its folder on the import path, and imports nothing new
from that folder but the release's own modules until it has marked its memory
(child.py); by then the child runs the student's code anyway.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MODULE_BYTES = 4 << 20  # the student's modules copied, in all (in name order: one past what is left is not)
MODULES = 64  # ... and at most this many


def _regular_file(path: Path, room: int) -> bytes | None:
    """The bytes of `path` if it is a regular file (never through a link) of at most `room` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as file:
        data = file.read(room + 1)
    return data if len(data) <= room else None


def student_modules(folder: Path, release: Path) -> dict[str, bytes]:
    """File name → bytes of the modules of `folder` (a hand-in) to grade with, beside the files of `release`
    (the assignment's source folder; see the module's docstring)."""
    chosen, room = {}, MODULE_BYTES
    for path in sorted(folder.glob("*.py")):
        if not path.stem.isidentifier() or (release / path.name).exists() or (release / path.stem).exists():
            continue
        data = _regular_file(path, room)
        if data is not None:
            chosen[path.name] = data
            room -= len(data)
        if len(chosen) == MODULES:
            break
    return chosen


def copy_student_modules(folder: Path, release: Path, prepared: Path) -> list[str]:
    """Copy the student's modules of `folder` (`student_modules`) into `prepared`, the grading child's files;
    returns their names."""
    chosen = student_modules(folder, release)
    for name, data in chosen.items():
        (prepared / name).write_bytes(data)
    return list(chosen)
