"""`nbgrader validate` refuses a student's hand-in: it runs a notebook's code in a kernel, unconfined.

nbgrader's validator executes every cell of a notebook with the rights of whoever runs it. A student
validating their own notebook runs their own code; an instructor validating a hand-in (the command on
`submitted/ada/attention/01_worked_example.ipynb`, or the Validate button of their JupyterLab on it) runs
a student's code as the instructor, outside the confinement that `nbgrader autograde` puts it in. So a
notebook in the course's hand-in folders (submitted/, autograded/, feedback/) or in its exchange is not
validated; the refusal names the command that grades it confined. A notebook anywhere else (the course's
source/ and release, a student's own folder) is validated as nbgrader does: the kit cannot tell whose
code a copy made elsewhere holds.
"""

from __future__ import annotations

import os
from pathlib import Path

from nbgrader.validator import Validator

HAND_IN_FOLDERS = ("submitted_directory", "autograded_directory", "feedback_directory")


class HandInNotValidated(PermissionError):
    """A student's hand-in given to nbgrader's validator."""


def install_validate_guard() -> None:
    """Make every nbgrader Validator in this process (the command's, the Jupyter server's) refuse hand-ins."""
    if getattr(Validator.validate, "refuses_hand_ins", False):
        return
    unguarded = Validator.validate

    def validate(self: Validator, filename: str):
        folder = hand_in_folder(self, Path(filename))
        if folder is not None:
            refusal = refusal_of(Path(filename), folder)
            fail = getattr(self.parent, "fail", None)  # `nbgrader validate`: one message, exit 1, no traceback
            if fail is not None:
                fail(refusal)
            raise HandInNotValidated(refusal)
        return unguarded(self, filename)

    validate.refuses_hand_ins = True
    Validator.validate = validate


def hand_in_folder(validator: Validator, notebook: Path) -> Path | None:
    """The course's hand-in folder or exchange that `notebook` lies in, as written, through any link it leads
    through, or with every link resolved (a link in submitted/ to a file elsewhere is still a hand-in), or None."""
    from nbgrader.coursedir import CourseDirectory

    places = {*_hops(notebook), notebook.resolve()}
    course = CourseDirectory(parent=validator)
    folders = [Path(course.root, getattr(course, name)) for name in HAND_IN_FOLDERS]
    exchange = validator.config.Exchange.get("root")
    if isinstance(exchange, str) and exchange:
        folders.append(Path(exchange))
    for folder in folders:
        if any(place.is_relative_to(inside) for place in places
               for inside in (Path(os.path.abspath(folder)), folder.resolve())):
            return folder
    return None


def _hops(path: Path, most: int = 40):
    """`path` made absolute, then each link it leads through, each made absolute (no further than `most` links)."""
    for _ in range(most):
        path = Path(os.path.abspath(path))
        yield path
        if not path.is_symlink():
            return
        path = path.parent / os.readlink(path)


def refusal_of(notebook: Path, folder: Path) -> str:
    return (f"nbgrader validate refuses {notebook}: it is in {folder}, a student's hand-in, and validating runs "
            f"its code in a kernel on this machine with your rights, outside the kit's confinement. Grade it "
            f"with `nbgrader autograde <assignment> --student <id>` (add --force to grade it again), which runs "
            f"it confined, and read the result in autograded/ or with `nbgrader generate_feedback`.")
