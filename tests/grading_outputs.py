"""What a grading run leaves for people to read, as one digest per file: the record a redesign must keep.

    .venv/bin/python -m tests.grading_outputs --write COURSE   # after `make demo` in COURSE: record it

`digests(course)` reads the gradebook (by name: what graders and students see)
and every file of the feedback, the class report, grades.csv and the
autograded folders with their grading reports (without the confinement,
which is the machine's). Left out: nbgrader's
submission_secret.txt (random each run) and the release's own files copied
beside each autograded notebook (judge/, the figures: tests/test_release.py
checks those). tests/test_grading_outputs.py compares `make demo`'s outputs
on the example class with RECORD.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from autograder.grade import REPORT_FILE
from kit.course import db_url
from tests.gradebooks import by_name

RECORD = Path(__file__).with_name("grading_outputs.json")
FOLDERS = ("feedback", "reports", "autograded")
LEFT_OUT = ("submission_secret.txt",)


def _kept(course: Path, path: Path) -> bool:
    release = course / "assignments" / "attention"
    relative = path.relative_to(course).parts
    copied_from_release = len(relative) > 3 and (release / Path(*relative[3:])).exists() \
        and path.suffix not in (".ipynb", ".html") and path.name != REPORT_FILE
    return path.is_file() and path.name not in LEFT_OUT and not copied_from_release


def _content(path: Path) -> bytes:
    """The file's bytes; a grading report's without the confinement, which is the machine's (bubblewrap as
    root, namespaces as an ordinary account), not the grading's."""
    if path.name != REPORT_FILE:
        return path.read_bytes()
    report = json.loads(path.read_text(encoding="utf-8"))
    report.pop("confinement", None)
    return json.dumps(report, sort_keys=True).encode()


def digests(course: Path) -> dict:
    files = {str(path.relative_to(course)): hashlib.sha256(_content(path)).hexdigest()
             for folder in FOLDERS for path in sorted((course / folder).rglob("*")) if _kept(course, path)}
    files["grades.csv"] = hashlib.sha256((course / "grades.csv").read_bytes()).hexdigest()
    return {"gradebook": hashlib.sha256(repr(by_name(db_url(course))).encode()).hexdigest(), "files": files}


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"] or len(sys.argv) != 3:
        sys.exit(__doc__)
    RECORD.write_text(json.dumps(digests(Path(sys.argv[2])), indent=1, sort_keys=True) + "\n")
