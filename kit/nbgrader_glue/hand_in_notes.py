"""What became of a student's hand-in, said on each of their feedback pages.

A notebook set aside as unreadable, one not handed in, one the grader found
is not that notebook (another notebook's cells under its name), one handed in under
another name (graded under its own, or not graded because two hand-ins hold its
cells) or beside a differing copy of itself has no page of its own to say so,
or a page that does not say why; nor did any page say that read-only cells the
student changed were put back before grading: the autograde log and the class
report told the instructor, never the student; nor what became of a Python
module handed in beside the notebooks (copied for grading, or why not:
autograder/student_modules.py). `HandInNotes`, in generate_feedback, reads
the student's handed-in folder without writing to it (autograder/handed_in.py:
`set_aside`, `under_their_names(copy=False)`; `module_notes`) and their grading
report's problems and tampering, and puts file → note in resources[NOTES]; the
feedback template lists them under the page's heading, escaped (file names are
the student's).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grade import REPORT_FILE, writable
from autograder.handed_in import MISSING, set_aside, under_their_names
from autograder.source_assignment import SourceAssignment
from autograder.student_modules import module_notes
from kit.report.collect import read_report

NOTES = "hand_in_notes"  # resources[NOTES]: notebook file name → what became of it, in the student's words


def hand_in_notes(submitted: Path, source: SourceAssignment, problems: dict[str, str],
                  tampering: list[str] = ()) -> dict[str, str]:
    """Notebook → what became of it, in the source's order, for each notebook not simply graded as handed in;
    then each Python module handed in beside them (autograder/student_modules.py `module_notes`).
    tampering: the grading report's read-only cells changed ("03_softmax_and_mix.ipynb: check_softmax edited")."""
    unreadable, renamed = set_aside(submitted), under_their_names(submitted, source, copy=False)
    changed: dict[str, list[str]] = {}
    for line in tampering:
        notebook, _, what = line.partition(": ")
        changed.setdefault(notebook, []).append(what)
    notes = {}
    for notebook in source.notebooks:
        said = []
        if notebook in renamed:
            said.append(renamed[notebook])
        elif notebook in unreadable:
            said.append(f"{unreadable[notebook]} (scored 0; your file is kept)")
        elif problems.get(notebook) == MISSING:
            said.append("not handed in (scored 0)")
        elif isinstance(problems.get(notebook), str):  # found by the grader: not this notebook, say
            said.append(f"{problems[notebook]} (scored 0)")
        if notebook in changed:
            said.append(f"{', '.join(changed[notebook])}: read-only cells are put back as released before grading, "
                        f"so changes to them do not count")
        if said:
            notes[notebook] = "; ".join(said)
    return {writable(name): writable(note) for name, note in (notes | module_notes(submitted, source.folder)).items()}


class HandInNotes(NbGraderPreprocessor):
    """resources[NOTES] for the student whose page is being written (worked out once for their pages)."""

    def preprocess(self, nb, resources):
        coursedir, info = CourseDirectory(config=self.config), resources["nbgrader"]
        report = Path(coursedir.format_path(coursedir.autograded_directory, info["student"], info["assignment"]),
                      REPORT_FILE)
        try:
            graded = report.stat().st_mtime_ns  # an autograde since: its notes again
        except OSError:
            graded = None
        resources[NOTES] = _notes(
            Path(coursedir.format_path(coursedir.submitted_directory, info["student"], info["assignment"])),
            Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"])), report, graded)
        return nb, resources


@lru_cache(maxsize=4)  # one student's pages are written one after another
def _notes(submitted: Path, source: Path, report_file: Path, graded: int | None) -> dict[str, str]:
    report = read_report(report_file) or {}
    problems = report.get("problems") if isinstance(report.get("problems"), dict) else {}
    tampering = [line for line in report.get("tampering") or [] if isinstance(line, str)]
    return hand_in_notes(submitted, SourceAssignment.of(source), problems, tampering)
