"""The kit's steps in nbgrader's autograde: grading without a kernel, the source restored, metadata checked once.

nbgrader_config.py (through `configure`) puts `GradeOutOfProcess` where
nbgrader's `Execute` was in `Autograde.autograde_preprocessors`. Instead of
running the notebook in a kernel, it asks the converter's `GradingRun` (in the
notebook's resources) for the student's report and writes each graded cell's
verdict as that cell's output: a ✓ line, or an error whose message is the
diagnosis, for the autograded notebook and the feedback. The scores are not
decoded from those outputs: `SaveScoresFromReport` (save_scores.py), in
nbgrader's SaveAutoGrades's place, writes each check's `earned` points from
the same report into the gradebook, AssignLatePenalties applies the late
policy, and the formgrader, feedback and export all read them as usual. Where
the course grades unconfined (course.toml: `[grading] unconfined = true`),
every autograded notebook (and so its feedback) opens with a note that says so.

`RestoreFromSource` runs among the sanitizing preprocessors: the autograded
notebook (and so the feedback) has every read-only cell as the source has it.
`CheckCellMetadataOnce` is nbgrader's CheckCellMetadata with its schema
compiled once instead of for every cell.
"""

from __future__ import annotations

import traceback
from functools import cache, lru_cache
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, NbGraderPreprocessor

from autograder import sandbox
from autograder.handed_in import restore_locked_cells
from kit.nbgrader_glue.grading_run import RUN

UNCONFINED_NOTE = ("**Graded unconfined.** This machine allows no confined world for a student's code, and the "
                   "course chose to grade without one (course.toml: `[grading] unconfined = true`): your code ran "
                   "with the grader's access to the course.")


class GradeOutOfProcess(NbGraderPreprocessor):
    """Each graded cell's output: its verdict in the student's report, from the run in the resources."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        if RUN not in resources:
            raise RuntimeError("GradeOutOfProcess grades only under the kit's autograde converter "
                               "(kit.nbgrader_glue.configure installs it)")
        report = resources[RUN].report(info["student"], info["assignment"])
        for line in report.tampering:
            self.log.warning("%s changed a read-only cell (restored before grading): %s", info["student"], line)
        for notebook, why in report.problems.items():
            self.log.warning("%s: %s: %s", info["student"], notebook, why)
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
    back before grading and in the feedback.

    Grading restores each notebook too (handed_in.restore_for_grading), with the
    same `restore_locked_cells`, but apart and on purpose: it reads the file the
    student handed in, in the grader's scratch folder, possibly on another
    machine (a Dask worker), and keeps only the cells it runs; this step restores
    the notebook nbgrader has read and sanitized, whole, for the autograded
    notebook and the feedback. The source is read once per process (`source_notebook`)."""

    def preprocess(self, nb, resources):
        return nbformat.from_dict(restore_locked_cells(nb, source_notebook(self.config, resources))), resources


def source_notebook(config, resources) -> nbformat.NotebookNode:
    """The source (instructor) notebook of the notebook nbgrader is converting, as `resources` names it: read
    once per process while its file stays as it was (every student's notebook is converted against the same
    one), and shared, so never to be changed (RestoreFromSource builds a new notebook from it)."""
    coursedir = CourseDirectory(config=config)
    info = resources["nbgrader"]
    source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"]))
    path = source / f"{info['notebook']}.ipynb"
    stat = path.stat()
    return _source_read(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=32)
def _source_read(path: Path, mtime_ns: int, size: int) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


@cache
def _compiled(schema_version: int):
    """nbgrader's metadata schema of this version, compiled to a jsonschema validator."""
    import jsonschema
    schema = MetadataValidator().schema
    return jsonschema.validators.validator_for(schema)(schema)


SCALARS = (str, int, float, bool, type(None))
_HOLDING: dict[tuple, None] = {}  # the flat metadata the schema was found to hold for, most recent last
HOLDING_KEPT = 4096


def _schema_holds(schema_version: int, meta) -> None:
    """The compiled schema's check of one cell's nbgrader metadata (jsonschema's ValidationError if it fails);
    metadata of plain values (as every cell's is) that passed is remembered, so the same metadata, on the
    same cell of every student's notebook, is not checked again (the last HOLDING_KEPT kept)."""
    key = None
    if type(meta) in (dict, nbformat.NotebookNode) and all(type(v) in SCALARS for v in meta.values()):
        key = (schema_version, *sorted((k, type(v).__name__, v) for k, v in meta.items()))
        if key in _HOLDING:
            return
    _compiled(schema_version).validate(meta)
    if key is not None:
        while len(_HOLDING) >= HOLDING_KEPT:
            del _HOLDING[next(iter(_HOLDING))]
        _HOLDING[key] = None


class _CompiledSchema(BaseMetadataValidator):
    """Below nbgrader's MetadataValidator in the method order: its schema step, compiled once."""

    def validate_cell(self, cell) -> None:
        meta = cell.metadata.get("nbgrader")
        if meta is None or meta.get("schema_version", 0) != self.schema_version:
            return super().validate_cell(cell)  # nbgrader's own version errors
        _schema_holds(self.schema_version, meta)


class _CompiledMetadataValidator(MetadataValidator, _CompiledSchema):
    """nbgrader's every check (grade ids, points, cell types), on the compiled schema."""


@cache
def _metadata_validator() -> _CompiledMetadataValidator:
    """One per process (making one reads three schema files): it keeps nothing between notebooks."""
    return _CompiledMetadataValidator()


class CheckCellMetadataOnce(CheckCellMetadata):
    """The checks of nbgrader's CheckCellMetadata, with the schema compiled once:
    `jsonschema.validate` checks the schema itself again for every cell, which
    took a sixth of `nbgrader autograde`'s time; and the same metadata (every
    student's copy of a cell the source restored) checked against it once."""

    def preprocess(self, nb, resources):
        try:
            _metadata_validator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources
