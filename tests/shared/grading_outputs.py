"""What a grading run leaves for people to read, as one digest per file: the record a redesign must keep.

    .venv/bin/python -m tests.shared.grading_outputs --write COURSE   # after `make demo` in COURSE: record it
    .venv/bin/python -m tests.shared.grading_outputs --write-synthetic  # build the synthetic class here: record it

`digests(course)` reads the gradebook (by name: what graders and students see)
and every file of the feedback, the class report, grades.csv and the
autograded folders with their grading reports (without the confinement,
which is the machine's, and without the peak memory a too-greedy call was
measured at, which varies by a tenth of a MiB between two gradings). Left
out: nbgrader's submission_secret.txt (random each run) and the release's own
files copied beside each autograded notebook (judge/, the figures:
tests/notebooks/test_release.py checks those). tests/nbgrader_glue/test_grading_outputs.py compares
`make demo`'s outputs on the example class with RECORD. Stop 61 recorded gus's eight feedback pages again: each
now says, under "Your hand-in", that his notebook 03 could not be read (kit/nbgrader_glue/hand_in_notes.py), then
hal's nine (the read-only cells he changed, put back before grading); no other file differed from the record
before each was written.

`synthetic_digests` does the same for tests/shared/synthetic_class.py's class
(test_report's: 100 students, seed 13): its gradebook (also one digest per
student, to say which differ), every grading_report.json, the class report's
named and anonymous pages and the summaries the report prints, the pages
without their similarity section (`<h2 id="similar">` up to the next h2 or the end)
and the summaries without its line: that section's statistic changed after
the record was made and is being changed on its own (tests/report/test_similarity.py
checks it). The class has no feedback, grades.csv or autograded notebooks:
the kit's grader grades it, not `nbgrader autograde`. Nothing else in it
depends on the machine or the run: two builds at one commit gave the same
files byte for byte, measured peak memories included.

SYNTHETIC_RECORD was recorded at f3b8055, the last commit on main before the
redesign (348b477, merged in 4ab3cec); tests/report/test_report.py compares the class
with it. One change was meant since, and only its files were recorded again:
issue 38 (stop 53) made blockwise_attention's hidden memory case without a mask
2,048 tokens in float32, so the eight students who build the full grid are told
that case's name, cap and grid size (their grading reports; their grades, pages
and every other file as recorded). Stop 60 named a tuple answer's parts in words ("the second of the tuple",
was "part 1") and told a tuple in another order so: the grading reports of the students with such a message were
recorded again, after a build at the commit before and one after differed in nothing else (but the peak memory
left out above); the two mistakes catalogued then are never drawn (synthetic_class.DRAWN_SINCE_NEVER), so the
class is the one recorded. --write-synthetic builds the class with the code of the tree it runs
in and records it; to record at an older commit, copy this module into a
worktree of that commit and run it there.

Stop 66 recorded six grading reports of the synthetic class again (s006, s016, s030, s051, s075, s076): on that
stop's freshly set-up machine (NumPy 2.4.6, unpinned), builds at the stop's first commit (c3785e2, which had passed
against the record on the machine before) and at its last commit gave those six files alike, and both differed
from the record in them alone; the change is the machine's, not the code's.

Stop 68 recorded 94 grading reports again, for their messages alone: labels ("a batch (2, 3, 5, 7), in integers",
was "... in float32, in integers"; "scores (6, 3) along axis 0"), numbers shown with the digits that tell them
apart, the count rule and the 8-bit hint. Built by that stop's code and compared with the record, the class
differed in those files alone: the gradebook, every grade and comment, and the report as recorded. The four
mistakes catalogued then are never drawn (DRAWN_SINCE_NEVER); a class that draws them too, built by the code
before the stop (061e6fd) and by the code after, differed in the grading reports and the report's pages alone.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path

from autograder.grade import REPORT_FILE
from kit.course import db_url
from tests.shared.gradebooks import by_name

RECORD = Path(__file__).with_name("grading_outputs.json")
SYNTHETIC_RECORD = Path(__file__).with_name("synthetic_outputs.json")
FOLDERS = ("feedback", "reports", "autograded")
LEFT_OUT = ("submission_secret.txt",)
# The class report's similarity section: from its heading to the next section's heading or the page's end.
SIMILARITY_SECTION = re.compile(r'<h2 id="similar">.*?(?=<h2 |</body>)', re.DOTALL)
SIMILARITY_SUMMARY = re.compile(r"^Answers alike, to look at.*\n?", re.M)  # kit/report/summary.py's line


def _kept(course: Path, path: Path) -> bool:
    release = course / "assignments" / "attention"
    relative = path.relative_to(course).parts
    copied_from_release = len(relative) > 3 and (release / Path(*relative[3:])).exists() \
        and path.suffix not in (".ipynb", ".html") and path.name != REPORT_FILE
    return path.is_file() and path.name not in LEFT_OUT and not copied_from_release


def unmeasured(report: dict) -> dict:
    """A grading report with the peak memory a too-greedy call was measured at left out of its messages: it
    varies by a tenth of a MiB from one grading of the same notebook to the next (autograder/judge/verdicts.py)."""
    for cell in report["cells"].values():
        cell["message"] = re.sub(r"but [\d.]+ MiB were held at the peak", "but (measured) MiB were held at the peak",
                                 cell["message"])
    return report


def _content(path: Path, without_similarity: bool = False) -> bytes:
    """The file's bytes; a grading report's without the confinement, which is the machine's (bubblewrap as
    root, namespaces as an ordinary account), not the grading's, and without its measured peak memory;
    with `without_similarity` (a class report page), without the similarity section."""
    if path.name == REPORT_FILE:
        report = json.loads(path.read_text(encoding="utf-8"))
        report.pop("confinement", None)
        return json.dumps(unmeasured(report), sort_keys=True).encode()
    if without_similarity:
        return SIMILARITY_SECTION.sub("", path.read_text(encoding="utf-8"), count=1).encode()
    return path.read_bytes()


def _is_page(course: Path, path: Path) -> bool:
    """Is `path` a class report page (reports/<assignment>/*.html)?"""
    return path.suffix == ".html" and path.relative_to(course).parts[0] == "reports"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digests(course: Path, url: str | None = None, similarity: bool = True) -> dict:
    """{"gradebook": digest, "files": path in `course` → digest}; the gradebook at `url` (default: the course's)."""
    files = {str(path.relative_to(course)): _sha(_content(path, not similarity and _is_page(course, path)))
             for folder in FOLDERS for path in sorted((course / folder).rglob("*")) if _kept(course, path)}
    if (course / "grades.csv").exists():  # `make demo` exports it; a record that holds it misses it if it is gone
        files["grades.csv"] = _sha((course / "grades.csv").read_bytes())
    return {"gradebook": _sha(repr(by_name(url or db_url(course))).encode()), "files": files}


def _by_student(seen: dict) -> dict[str, str]:
    """by_name's entries grouped by the student they belong to (the roster and the assignment by their own
    names), one digest per group."""
    groups: dict[str, dict] = {}
    for key, value in seen.items():
        groups.setdefault(key if isinstance(key, str) else key[0], {})[key] = value
    return {group: _sha(repr(entries).encode()) for group, entries in sorted(groups.items())}


def write_class_report(course: Path, assignment: str = "attention") -> dict[str, str]:
    """Write the class report's named and anonymous pages as `python -m kit.report [--anonymous]` does;
    page file name → the summary the command prints."""
    from kit.report.build import course_directory, write_report  # the report's code, only where it is made
    written = (write_report(course_directory(course), assignment, anonymous) for anonymous in (False, True))
    return {page.name: text for page, text in written}


def synthetic_digests(course: Path, url: str, summaries: dict[str, str]) -> dict:
    """digests() of a synthetic class without the similarity section, with its gradebook student by student
    ("gradebook by student") and the report's printed summaries (`summaries`, page → text) without theirs."""
    found = digests(course, url, similarity=False)
    found["gradebook by student"] = _by_student(by_name(url))
    found["summaries"] = {page: SIMILARITY_SUMMARY.sub("", text) for page, text in sorted(summaries.items())}
    return found


def differences(recorded: dict, now: dict) -> list[str]:
    """What differs between two digests: a top-level entry's name, or "entry: key" within a mapping."""
    found = []
    for entry in sorted(recorded.keys() | now.keys()):
        was, is_ = recorded.get(entry), now.get(entry)
        if isinstance(was, dict) and isinstance(is_, dict):
            found += [f"{entry}: {key}" for key in sorted(was.keys() | is_.keys()) if was.get(key) != is_.get(key)]
        elif was != is_:
            found.append(entry)
    return found


def record_synthetic_class() -> None:
    """Build test_report's synthetic class with this tree's code, in a temporary folder, and record it."""
    from tests.shared.synthetic_class import build_class  # builds with the code of the tree this runs in
    with tempfile.TemporaryDirectory(prefix="synthetic-record-") as scratch:
        course, url = Path(scratch) / "course", f"sqlite:///{Path(scratch) / 'grades.sqlite'}"
        course.mkdir()
        build_class(course, url)
        found = synthetic_digests(course, url, write_class_report(course))
    SYNTHETIC_RECORD.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-synthetic"]:
        record_synthetic_class()
    elif sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        RECORD.write_text(json.dumps(digests(Path(sys.argv[2])), indent=1, sort_keys=True) + "\n")
    else:
        sys.exit(__doc__)
