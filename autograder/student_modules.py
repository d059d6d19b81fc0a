"""The Python modules a student hands in beside their notebooks, importable while the notebooks are graded.

In JupyterLab a notebook imports a module from its own folder (`from my_helpers
import softmax`), or a package there (`from helpers.core import softmax`, a
folder with an __init__.py), and stock nbgrader grades it there. The grader
copies each such module, and each package's modules, into the grading child's
folder with the restored notebooks, but:

- a module the release has (workbook.py, explorer.py: every student's folder
  holds them), or named as a folder of it (judge): never the student's copy;
  the release's support files are graded with (autograder/submission.py);
- anything but a regular file (a link, a pipe), a name that is no
  identifier, and modules past MODULE_BYTES or MODULES in all (the child's
  folder is small): left where they are, so the notebook's import fails and
  says so.

Each feedback page says what became of each module (`module_notes`, under
"Your hand-in": kit/nbgrader_glue/hand_in_notes.py), and of a release file the
student changed.

A module by the name of one Python has (numpy.py, random.py) is copied too, as
JupyterLab would find it, but it cannot run before the student's code is
meant to: the grading child imports NumPy, the judge and everything else it
runs before it puts its folder on the import path, and imports nothing new
from that folder but the release's own modules until it has marked its memory
(child.py); by then the child runs the student's code anyway.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MODULE_BYTES = 4 << 20  # the student's modules copied, in all (in name order: one past what is left is not)
MODULES = 64  # ... and at most this many


def _read(path: Path, room: int) -> bytes | str:
    """The bytes of `path` if it is a regular file (never read through a link) of at most `room` bytes; else
    why not, in the student's words."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        return "it is a link, not the file itself" if e.errno == errno.ELOOP else f"it cannot be read ({e.strerror})"
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return "it is not a plain file"
    with os.fdopen(fd, "rb") as file:
        data = file.read(room + 1)
    return data if len(data) <= room else f"your modules past {MODULE_BYTES >> 20} MiB in all are not"


PACKAGE_DEPTH = 4  # folders below a package's own looked into


def _package_files(package: Path, depth: int = 0) -> list[Path]:
    """The .py files of a package folder and of its subpackages (folders with an __init__.py, named as Python
    names them), never through a link; [] for a folder that is not a package."""
    init = package / "__init__.py"
    if package.is_symlink() or not package.is_dir() or init.is_symlink() or not init.is_file() \
            or not package.name.isidentifier() or depth > PACKAGE_DEPTH:
        return []
    found = list(package.glob("*.py"))  # a link among them is named as one, never read (`_read`)
    for sub in sorted(package.iterdir()):
        if sub.name != "__pycache__":
            found += _package_files(sub, depth + 1)
    return found


def _released(name: str, release: Path) -> bool:
    """Does the release have a file or folder by the name of the module or package `name` (its top part)?"""
    top = Path(name).parts[0]
    stem = top.removesuffix(".py")
    return any((release / each).exists() for each in {top, stem, f"{stem}.py"})


def considered(folder: Path, release: Path) -> dict[str, bytes | str]:
    """Path (relative to `folder`, a hand-in: `my_attention.py`, `helpers/core.py`) → its bytes to grade with, or
    why it is not copied, for each module at the top of `folder` and each file of a package there (a folder with
    an __init__.py, as `import helpers.core` finds it in JupyterLab), in name order, but those the release (the
    assignment's source folder) has a file or folder of that name for; past MODULES copied, the first left out
    says so and the rest are not looked at (see the module's docstring)."""
    found: dict[str, bytes | str] = {}
    room, copied = MODULE_BYTES, 0
    subfolders = folder.iterdir() if folder.is_dir() else ()  # a hand-in removed since: no modules
    modules = [*folder.glob("*.py"), *(path for sub in subfolders for path in _package_files(sub))]
    for name, path in sorted((path.relative_to(folder).as_posix(), path) for path in modules):
        if _released(name, release):
            continue
        if copied == MODULES:
            found[name] = f"only the first {MODULES} of your modules are"
            break
        found[name] = _read(path, room) if path.stem.isidentifier() else \
            f"{path.stem!r} is not a name Python can import"
        if isinstance(found[name], bytes):
            room, copied = room - len(found[name]), copied + 1
    return found


def module_name(name: str) -> str:
    """The name an import gives the module at path `name`: "helpers/maths/__init__.py" → "helpers.maths"."""
    return name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def student_modules(folder: Path, release: Path) -> dict[str, bytes]:
    """File name → bytes of the modules of `folder` (a hand-in) to grade with, beside the files of `release`."""
    return {name: data for name, data in considered(folder, release).items() if isinstance(data, bytes)}


def module_notes(folder: Path, release: Path) -> dict[str, str]:
    """File name → what became of each module of `folder` in grading, in the student's words: copied, not
    copied and why, or (a release file the student changed) not theirs but the release's."""
    notes = {name: "copied beside your notebooks for grading, which may import it" if isinstance(what, bytes) else
             f"not copied for grading: {what}" for name, what in considered(folder, release).items()}
    for path in sorted(folder.glob("*.py")):
        released = release / path.name
        if released.is_file() and _read(path, released.stat().st_size) != released.read_bytes():
            notes[path.name] = "the release's own copy is graded with, not yours: changes to it do not count"
    return dict(sorted(notes.items()))


def copy_student_modules(folder: Path, release: Path, prepared: Path) -> list[str]:
    """Copy the student's modules of `folder` (`student_modules`) into `prepared`, the grading child's files;
    returns their names."""
    chosen = student_modules(folder, release)
    for name, data in chosen.items():
        (prepared / name).parent.mkdir(parents=True, exist_ok=True)
        (prepared / name).write_bytes(data)
    return list(chosen)
