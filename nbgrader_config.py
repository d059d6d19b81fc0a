"""nbgrader configuration for the attention kit.

The course root is this repository: instructor notebooks in source/, the
student release in assignments/. Points, the deadline, the late policy and
where the gradebook lives are in course.toml, the one file to edit for course
policy (the gradebook: SQLite in gradebook.db unless course.toml or KIT_DB_URL
names a database server; never committed: it holds grades).
"""

import os
import sys
from pathlib import Path

from kit.course import course, db_url

ROOT = Path(__file__).resolve().parent
COURSE = course(ROOT)

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

c.CourseDirectory.root = str(ROOT)
c.CourseDirectory.course_id = COURSE.course_id
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "assignments"
c.CourseDirectory.db_url = db_url(ROOT)

# A command that opens the gradebook first checks that it answers, and stops with one line if not,
# before it reads or moves any student's work (kit/gradebook.py).
from kit.gradebook import opens_gradebook, require_gradebook, url_on_command_line  # noqa: E402

if opens_gradebook(sys.argv):
    require_gradebook(url_on_command_line(sys.argv) or c.CourseDirectory.db_url)

# A SQLite gradebook commits without waiting for the disk each time (kit/sqlite_gradebook.py).
from kit.sqlite_gradebook import use_write_ahead_log  # noqa: E402

use_write_ahead_log()

# nbgrader starts `alembic` from PATH to make a gradebook: this environment's, also when a command runs
# as .venv/bin/nbgrader without the environment activated.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

# The exchange students fetch from and submit to (course.toml [exchange]): a folder in the course keeps a
# one-machine course self-contained; on a JupyterHub, the shared folder `python -m kit.hub setup` made.
c.Exchange.root = COURSE.exchange_root or str(ROOT / "exchange")

# Collect takes only hand-ins it can trust (kit/hand_in/): the command and the formgrader's Collect
# button both. Released feedback is readable by its student's account alone.
c.ExchangeFactory.collect = "kit.hand_in.collect.TrustedCollect"
c.ExchangeFactory.release_feedback = "kit.hand_in.feedback.OwnerOnlyReleaseFeedback"

# Stubs raise NotStarted, which names the function still to write (see autograder/judge/exceptions.py).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotStarted()"}

# Every cell, including a student's infinite loop, stops after this many seconds
# (nbgrader 0.9 reads Execute.timeout, not ExecutePreprocessor.timeout).
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True

# The hidden checks import autograder/ and solutions/ from this repository,
# whatever folder nbgrader runs a notebook in.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

# Never copy caches into the release or a student's feedback.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".hypothesis"]

# Feedback shows each hidden check's verdict and message, never its code, and each written answer's points
# and comment, never its rubric (nbgrader's own ClearMarkScheme, as the release runs it: kit/written.py).
from kit.feedback import FeedbackExporter, HideHiddenTests  # noqa: E402
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import ClearMarkScheme, GetGrades  # noqa: E402

c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, ClearMarkScheme, HideHiddenTests]
# ... on a page in English whose links, colours and messages pass WCAG 2.1 AA (tests/test_accessibility.py).
c.GenerateFeedback.exporter_class = FeedbackExporter

# Autograding runs the student's code in a confined child process per student
# and compares in nbgrader's own process (autograder/nbgrader_plugin.py).
# KIT_GRADING=in-kernel restores nbgrader's stock path, which executes every
# notebook in a kernel with the hidden checks in it (for comparison only).
from nbgrader.preprocessors import (  # noqa: E402
    ClearOutput, DeduplicateIds, IgnorePattern, LimitOutput, OverwriteCells, OverwriteKernelspec)
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402

if os.environ.get("KIT_GRADING", "out-of-process") == "out-of-process":
    from autograder.nbgrader_plugin import CheckCellMetadataOnce, GradeOutOfProcess, RestoreFromSource  # noqa: E402
    from autograder.parallel import AssignLatePenaltiesInTurn, SaveAutoGradesInTurn  # noqa: E402

    c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, RestoreFromSource, OverwriteKernelspec,
                                          OverwriteCells, CheckCellMetadataOnce]
    c.Autograde.autograde_preprocessors = [GradeOutOfProcess, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                           SaveAutoGradesInTurn, AssignLatePenaltiesInTurn, CheckCellMetadataOnce]
    # Several students at once (autograder/parallel.py), on this machine or a Dask cluster (autograder/cluster.py):
    # course.toml [grading], overridden by KIT_GRADING_WORKERS and KIT_GRADING_SCHEDULER (kit/course.py).
    c.ParallelAutograde.workers = COURSE.workers
    c.ParallelAutograde.scheduler = COURSE.scheduler
    c.GradeOutOfProcess.workers = COURSE.workers or len(os.sched_getaffinity(0))
    c.GradeOutOfProcess.unconfined = COURSE.unconfined
    c.GradeOutOfProcess.grader_cpu_seconds = COURSE.grader_budget.cpu_seconds
    c.GradeOutOfProcess.grader_wall_seconds = COURSE.grader_budget.wall_seconds

# Feedback pages for several students at once, on either path (autograder/parallel.py).
from autograder.parallel import install  # noqa: E402

c.ParallelGenerateFeedback.workers = COURSE.workers
install(autograde=os.environ.get("KIT_GRADING", "out-of-process") == "out-of-process")

# Late policy from course.toml: a proportional penalty per started hour late.
from kit.late import ProportionalLatePenalty  # noqa: E402

c.AssignLatePenalties.plugin_class = ProportionalLatePenalty
c.ProportionalLatePenalty.per_hour = COURSE.late_per_hour
c.ProportionalLatePenalty.max_fraction = COURSE.late_max_fraction

# `nbgrader export` writes nbgrader's CSV with scores rounded to a millionth of a point (kit/export.py).
c.ExportApp.plugin_class = "kit.export.CsvExport"

# Grades for the course's learning platform (kit/export.py): the Canvas assignment's id from course.toml.
c.CanvasExport.assignment_id = COURSE.canvas_assignment_id

# Two autograde runs on one course folder never interleave: the second waits.
if "autograde" in sys.argv[1:2]:
    from kit.lock import hold_grading_lock  # noqa: E402

    # Before any student's code runs here: which confined world this machine allows, or stop and say why.
    # With a Dask scheduler no student's code runs here: each worker checks its own machine, per student.
    if os.environ.get("KIT_GRADING", "out-of-process") == "out-of-process" and not c.ParallelAutograde.scheduler:
        from autograder.nbgrader_plugin import check_confinement  # noqa: E402

        check_confinement(c.GradeOutOfProcess.unconfined)
    hold_grading_lock(ROOT)
