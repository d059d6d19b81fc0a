"""`configure(c, course)`: everything the kit plugs into nbgrader, set on nbgrader's configuration.

nbgrader_config.py declares the course's own settings and calls this once.
It puts in place:

- the gradebook check: a command that opens the gradebook stops with one line
  when it does not answer, before it reads or moves any student's work
  (reachable.py); a SQLite gradebook commits without waiting for the disk
  each time (sqlite_wal.py); a gradebook another writer holds is waited for,
  up to course.toml's `[gradebook] wait_seconds` (locked_gradebook.py);
- the grading path, chosen by KIT_GRADING: "out-of-process" (the kit's, the
  default: a confined child process per student, comparison in nbgrader's
  process; preprocessors.py, autograde.py) or "in-kernel" (nbgrader's stock
  path, which executes every notebook in a kernel with the hidden checks in
  it; for comparison only);
- the kit's converters in place of nbgrader's: nbgrader's apps name their
  converter classes in code, not in configuration, so `install_converters`
  replaces them in the apps' modules (autograde.py, feedback.py);
- what a student wrote in markdown shown as text in the autograded notebook
  and the feedback, on either grading path (written_as_text.py);
- feedback that hides hidden checks' code and written answers' rubrics, its
  grades read in a few queries per notebook (get_grades.py), on the kit's
  page, set up once per process (feedback_page.py, feedback_exporter.py,
  templates/kit_feedback/), and the
  formgrader's view of a submission in the kit's template over nbgrader's
  (templates/kit_formgrade/); the late policy (late.py) and the exports
  (export.py);
- `nbgrader validate` refusing a student's hand-in, whose code it would run
  unconfined (validate_guard.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from autograder.judge.checks import ANSWER_KEY
from kit.course import Course

IN_KERNEL, OUT_OF_PROCESS = "in-kernel", "out-of-process"


def grading_path() -> str:
    """KIT_GRADING: the kit's grading path (OUT_OF_PROCESS, the default) or nbgrader's own (IN_KERNEL); ValueError
    for any other value (a typo must not choose nbgrader's stock path, which runs students' code unconfined)."""
    path = os.environ.get("KIT_GRADING") or OUT_OF_PROCESS
    if path not in (OUT_OF_PROCESS, IN_KERNEL):
        raise ValueError(f"KIT_GRADING={path!r} is neither {OUT_OF_PROCESS!r} (the kit's grading, the default) nor "
                         f"{IN_KERNEL!r} (nbgrader's stock path, for comparison)")
    return path


def configure(c, course: Course) -> None:
    """Set nbgrader's configuration `c` for the kit, with the course's policy (course.toml)."""
    from kit.nbgrader_glue.locked_gradebook import wait_for_locked_gradebook
    from kit.nbgrader_glue.reachable import opens_gradebook, require_gradebook, url_on_command_line
    from kit.nbgrader_glue.sqlite_wal import use_write_ahead_log
    from kit.nbgrader_glue.validate_guard import install_validate_guard

    if opens_gradebook(sys.argv):
        require_gradebook(url_on_command_line(sys.argv) or c.CourseDirectory.db_url)
    use_write_ahead_log()
    wait_for_locked_gradebook(course.gradebook_wait_seconds)
    _environment(Path(c.CourseDirectory.root))
    _feedback(c, course)
    _formgrader(c)
    if grading_path() == OUT_OF_PROCESS:
        _out_of_process(c, course)
    else:
        _in_kernel(c)
    install_converters(autograde_in_workers=grading_path() == OUT_OF_PROCESS)
    install_validate_guard()
    _late_policy_and_exports(c, course)


def _environment(root: Path) -> None:
    # nbgrader starts `alembic` from PATH to make a gradebook: this environment's, also when a command runs
    # as .venv/bin/nbgrader without the environment activated.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    # The hidden checks import autograder/ and solutions/ from the course, whatever folder nbgrader runs a
    # notebook in.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    # On nbgrader's stock path the visible checks run in the kernel: with the reference's functions standing in
    # for those an answer is built on (autograder/answer_key.py), named here, never in the judge students get.
    os.environ[ANSWER_KEY] = "autograder.answer_key"


def _feedback(c, course: Course) -> None:
    """Feedback shows each hidden check's verdict and message, never its code, and each written answer's points
    and comment, never its rubric (nbgrader's own ClearMarkScheme, as the release runs it: kit/written.py);
    several students' pages are written at once, on either grading path."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import ClearMarkScheme

    from kit.nbgrader_glue.feedback_exporter import FeedbackExporter
    from kit.nbgrader_glue.feedback_page import TEMPLATES, HideHiddenTests
    from kit.nbgrader_glue.get_grades import GetGradesAtOnce
    from kit.nbgrader_glue.hand_in_notes import HandInNotes
    from kit.nbgrader_glue.written_as_text import WrittenAnswersAsText

    # Written answers as text first, while the questions still read as in the source (ClearMarkScheme cuts them).
    c.GenerateFeedback.preprocessors = [GetGradesAtOnce, WrittenAnswersAsText, CSSHTMLHeaderPreprocessor, ClearMarkScheme,
                                        HideHiddenTests, HandInNotes]
    # ... on the kit's page, which passes WCAG 2.1 AA at any width (tests/browser/test_accessibility.py), with no "¶" link
    # in every heading. FeedbackExporter's own settings: the formgrader's HTMLExporter keeps nbgrader's template.
    c.GenerateFeedback.exporter_class = FeedbackExporter
    c.FeedbackExporter.template_name = "kit_feedback"
    c.FeedbackExporter.extra_template_basedirs = [str(TEMPLATES)]
    c.FeedbackExporter.exclude_anchor_links = True
    c.ParallelGenerateFeedback.workers = course.workers


def _formgrader(c) -> None:
    """The formgrader's view of a submission (its HTMLExporter, configured from this file) in the kit's template
    over nbgrader's: in English, its code and messages wrapped at any width (templates/kit_formgrade/)."""
    import nbgrader

    from kit.nbgrader_glue.feedback_page import TEMPLATES

    nbgrader_templates = str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates")
    c.HTMLExporter.template_name = "kit_formgrade"
    c.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), nbgrader_templates]
    c.HTMLExporter.extra_template_paths = [nbgrader_templates]  # for its {% extends 'formgrade/index.html.j2' %}
    c.HTMLExporter.exclude_anchor_links = True


def _out_of_process(c, course: Course) -> None:
    """The kit's grading path: several students at once, on this machine or a Dask cluster (autograder/cluster.py),
    after course.toml [grading], overridden by KIT_GRADING_WORKERS and KIT_GRADING_SCHEDULER (kit/course.py)."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import ClearOutput, DeduplicateIds, IgnorePattern, LimitOutput, OverwriteKernelspec

    from kit.nbgrader_glue.autograde_exporter import AutogradeExporter
    from kit.nbgrader_glue.late_penalties import AssignLatePenaltiesAtOnce
    from kit.nbgrader_glue.overwrite_cells import OverwriteCellsAtOnce
    from kit.nbgrader_glue.preprocessors import CheckCellMetadataOnce, GradeOutOfProcess, RestoreFromSource
    from kit.nbgrader_glue.save_scores import SaveScoresFromReport
    from kit.nbgrader_glue.written_as_text import WrittenAnswersAsText

    # The notebook rebuilt from the source first: nbgrader's steps after it read only the source's metadata and
    # clean cells of the student's own (a cell's "nbgrader" the student made a string or a list stopped their
    # autograde in DeduplicateIds), and of an answer cell duplicated, the feedback shows the copy graded.
    c.Autograde.sanitize_preprocessors = [ClearOutput, RestoreFromSource, DeduplicateIds, OverwriteKernelspec,
                                          OverwriteCellsAtOnce, CheckCellMetadataOnce, WrittenAnswersAsText]
    c.Autograde.autograde_preprocessors = [GradeOutOfProcess, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                           SaveScoresFromReport, AssignLatePenaltiesAtOnce, CheckCellMetadataOnce]
    # Each notebook checked against nbformat's schema once its steps are done, not after each of its fourteen steps
    # (a notebook a step broke still fails its student, as before), and neither copied nor checked again where
    # nbconvert repeats it (autograde_exporter.py).
    c.NotebookExporter.optimistic_validation = True
    c.Autograde.exporter_class = AutogradeExporter
    c.ParallelAutograde.workers = course.workers
    c.ParallelAutograde.scheduler = course.scheduler
    c.GradingRun.threads = course.workers or len(os.sched_getaffinity(0))
    c.GradingRun.unconfined = course.unconfined
    c.GradingRun.grader_cpu_seconds = course.grader_budget.cpu_seconds
    c.GradingRun.grader_wall_seconds = course.grader_budget.wall_seconds
    c.GradingRun.grader_memory_bytes = course.grader_budget.memory_bytes
    c.GradingRun.student_disk_bytes = course.grader_budget.disk_bytes


def _in_kernel(c) -> None:
    """nbgrader's stock path, with what the student wrote in markdown shown as text (written_as_text.py)."""
    from nbgrader.converters import Autograde

    from kit.nbgrader_glue.written_as_text import WrittenAnswersAsText

    c.Autograde.sanitize_preprocessors = [*Autograde.class_traits()["sanitize_preprocessors"].default(),
                                          WrittenAnswersAsText]


def install_converters(autograde_in_workers: bool = True) -> None:
    """Make `nbgrader generate_feedback` use ParallelGenerateFeedback, and `nbgrader autograde` ParallelAutograde
    (with `autograde_in_workers=False`, nbgrader's own Autograde holding the grading lock, saying it is unconfined)."""
    import nbgrader.apps.autogradeapp as autograde_app
    import nbgrader.apps.generatefeedbackapp as feedback_app

    from kit.nbgrader_glue.autograde import ParallelAutograde, StockAutograde
    from kit.nbgrader_glue.feedback import ParallelGenerateFeedback

    autograde_app.Autograde = ParallelAutograde if autograde_in_workers else StockAutograde
    feedback_app.GenerateFeedback = ParallelGenerateFeedback


def _late_policy_and_exports(c, course: Course) -> None:
    from kit.nbgrader_glue.late import ProportionalLatePenalty

    # Late policy from course.toml: a proportional penalty per started hour late.
    c.AssignLatePenalties.plugin_class = ProportionalLatePenalty
    c.ProportionalLatePenalty.per_hour = course.late_per_hour
    c.ProportionalLatePenalty.max_fraction = course.late_max_fraction
    # `nbgrader export` writes nbgrader's CSV with scores rounded to a millionth of a point (export.py),
    # or the course's learning platform's import, with the Canvas assignment's id from course.toml.
    c.ExportApp.plugin_class = "kit.nbgrader_glue.export.CsvExport"
    c.CanvasExport.assignment_id = course.canvas_assignment_id
