"""`nbgrader autograde` without running a student's code in the grader's process.

nbgrader_config.py puts `GradeOutOfProcess` where nbgrader's `Execute` was in
`Autograde.autograde_preprocessors`. Instead of running the notebook in a
kernel, it grades the student's whole submission once (autograder.grade: one
confined child process per student, comparison in this process) and writes
each graded cell's verdict as that cell's output: a ✓ line, or an error whose
message is the diagnosis. nbgrader's own SaveAutoGrades then turns outputs
into scores in gradebook.db, AssignLatePenalties applies the late policy, and
the formgrader, feedback and export all read them as usual.

`RestoreFromSource` runs among the sanitizing preprocessors: the autograded
notebook (and so the feedback) has every read-only cell as the source has it.
`CheckCellMetadataOnce` is nbgrader's CheckCellMetadata with its schema
compiled once instead of for every cell.

In one nbgrader process, students are graded `GradeOutOfProcess.workers` at
a time: the first notebook nbgrader asks about starts every student that
process will autograde. autograder.parallel runs nbgrader's own work on
several students at once too, in worker processes.

`check_confinement`, called by nbgrader_config.py as `nbgrader autograde`
starts, stops the command before any student's code runs where the machine
allows no confinement (autograder/sandbox.py), unless the course opts out
(course.toml: `[grading] unconfined = true`); then every autograded notebook
(and so its feedback) opens with a note that it was graded unconfined.
"""

from __future__ import annotations

import os
import sys
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, NbGraderPreprocessor
from traitlets import Bool, Float, Integer

from autograder import sandbox
from autograder.budget import GraderBudget
from autograder.grade import REPORT_FILE, Report, grade_submission, save_report
from autograder.handed_in import restore_locked_cells

_pool: ThreadPoolExecutor | None = None
_reports: dict[tuple[str, str], Future] = {}
_saved: dict[tuple[str, str], Report] = {}  # the report last written beside each student's autograded notebooks
UNCONFINED_NOTE = ("**Graded unconfined.** This machine allows no confined world for a student's code, and the "
                   "course chose to grade without one (course.toml: `[grading] unconfined = true`): your code ran "
                   "with the grader's access to the course.")


def check_confinement(unconfined: bool) -> str:
    """The confinement autograde will use; exits with the refusal where there is none and the course did not opt out."""
    try:
        how = sandbox.confinement(sandbox.IF_AVAILABLE if unconfined else sandbox.REQUIRED)
    except sandbox.NoConfinement as refusal:
        sys.stderr.write(f"{refusal}\n")
        raise SystemExit(2) from None
    if how == sandbox.UNCONFINED:
        sys.stderr.write(f"[kit] GRADING UNCONFINED (course.toml: [grading] unconfined = true): "
                         f"{sandbox.probe()[1]}\n")
    return how


def graded_elsewhere(student: str, assignment: str, report: Report) -> None:
    """Give GradeOutOfProcess a report made elsewhere (it then grades no one itself for this student)."""
    done = Future()
    done.set_result(report)
    _reports[(student, assignment)] = done


class GradeOutOfProcess(NbGraderPreprocessor):
    workers = Integer(os.cpu_count() or 1, help="Students graded at the same time in this process.").tag(config=True)
    unconfined = Bool(False, help="Grade unconfined where the machine allows no confinement "
                                  "(course.toml: [grading] unconfined).").tag(config=True)
    grader_cpu_seconds = Float(GraderBudget.cpu_seconds, help="The grader's CPU seconds per student "
                                                              "(course.toml: [grading] grader_cpu_seconds).").tag(config=True)
    grader_wall_seconds = Float(GraderBudget.wall_seconds, help="The grader's seconds on the clock per student "
                                                                "(course.toml: [grading] grader_wall_seconds).").tag(config=True)

    @property
    def budget(self) -> GraderBudget:
        return GraderBudget(self.grader_cpu_seconds, self.grader_wall_seconds)

    def _students_to_grade(self, coursedir: CourseDirectory, student: str, assignment: str) -> list[str]:
        """This student, and the others the converter running this preprocessor will grade
        (all submitted students when nbgrader runs serially; one in a worker of autograder.parallel)."""
        converter = getattr(getattr(self, "parent", None), "parent", None)
        folders = {os.path.normpath(f) for f in getattr(converter, "assignments", {})}
        submitted = Path(coursedir.format_path(coursedir.submitted_directory, "*", assignment)).parent.parent
        others = {p.name for p in submitted.iterdir() if (p / assignment).is_dir() and
                  os.path.normpath(coursedir.format_path(coursedir.submitted_directory, p.name, assignment)) in folders}
        return sorted({student} | others)

    def _report(self, student: str, assignment: str) -> Report:
        global _pool
        coursedir = CourseDirectory(config=self.config)
        source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=self.workers)
        if (student, assignment) not in _reports:
            for other in self._students_to_grade(coursedir, student, assignment):
                if (other, assignment) not in _reports:
                    folder = Path(coursedir.format_path(coursedir.submitted_directory, other, assignment))
                    confine = sandbox.IF_AVAILABLE if self.unconfined else sandbox.REQUIRED
                    _reports[(other, assignment)] = _pool.submit(grade_submission, folder, source, confine,
                                                                 self.budget)
        report = _reports[(student, assignment)].result()
        autograded = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))
        if _saved.get((student, assignment)) is not report or not (autograded / REPORT_FILE).exists():
            save_report(report, autograded)  # once per student, not again for each of its notebooks
            _saved[(student, assignment)] = report
        for line in report.tampering:
            self.log.warning("%s changed a read-only cell (restored before grading): %s", student, line)
        for notebook, why in report.problems.items():
            self.log.warning("%s: %s: %s", student, notebook, why)
        return report

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        report = self._report(info["student"], info["assignment"])
        self._cells = report.cells
        if report.confinement == sandbox.UNCONFINED:
            nb.cells.insert(0, new_markdown_cell(UNCONFINED_NOTE))
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade"):
            grade = self._cells.get(meta.get("grade_id"))
            if grade is None:
                cell.outputs = [new_output("error", ename="NotGraded", evalue="this check has no grader",
                                           traceback=["NotGraded: this check has no grader"])]
            elif grade.earned == grade.possible:
                cell.outputs = [new_output("stream", name="stdout", text=f"✓ passed: {grade.grade_id}\n")]
            else:
                cell.outputs = [new_output("error", ename="CheckFailed", evalue=grade.message,
                                           traceback=[f"CheckFailed: {grade.message}"])]
        return cell, resources


class RestoreFromSource(NbGraderPreprocessor):
    """Sanitizing step: rebuild the notebook from the source, keeping only the
    student's answers, so deleted, retyped or duplicated read-only cells are
    back before grading and in the feedback."""

    def preprocess(self, nb, resources):
        coursedir = CourseDirectory(config=self.config)
        info = resources["nbgrader"]
        source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"]))
        original = nbformat.read(source / f"{info['notebook']}.ipynb", as_version=4)
        return nbformat.from_dict(restore_locked_cells(nb, original)), resources


@cache
def _compiled(schema_version: int):
    """nbgrader's metadata schema of this version, compiled to a jsonschema validator."""
    import jsonschema
    schema = MetadataValidator().schema
    return jsonschema.validators.validator_for(schema)(schema)


class _CompiledSchema(BaseMetadataValidator):
    """Below nbgrader's MetadataValidator in the method order: its schema step, compiled once."""

    def validate_cell(self, cell) -> None:
        meta = cell.metadata.get("nbgrader")
        if meta is None or meta.get("schema_version", 0) != self.schema_version:
            return super().validate_cell(cell)  # nbgrader's own version errors
        _compiled(self.schema_version).validate(meta)


class _CompiledMetadataValidator(MetadataValidator, _CompiledSchema):
    """nbgrader's every check (grade ids, points, cell types), on the compiled schema."""


class CheckCellMetadataOnce(CheckCellMetadata):
    """The checks of nbgrader's CheckCellMetadata, with the schema compiled once:
    `jsonschema.validate` checks the schema itself again for every cell, which
    took a sixth of `nbgrader autograde`'s time."""

    def preprocess(self, nb, resources):
        try:
            _CompiledMetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources
