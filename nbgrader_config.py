"""nbgrader configuration for the attention kit.

The course root is this repository: instructor notebooks in source/, the
student release in assignments/. Points, the deadline, the late policy and
where the gradebook lives are in course.toml, the one file to edit for course
policy (the gradebook: SQLite in gradebook.db unless course.toml or KIT_DB_URL
names a database server; never committed: it holds grades). Everything the
kit plugs into nbgrader (its grading path, converters, feedback, late policy,
exports and the gradebook check) is put in place by `configure`, at the end
(kit/nbgrader_glue/).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent


def stop(error: BaseException) -> None:
    """End the command here, saying why. nbgrader (traitlets) logs an error raised in this file and goes on
    without it: with its own defaults, that is its stock grading path, students' code run unconfined."""
    raise SystemExit(f"{ROOT / 'nbgrader_config.py'}: the kit could not be set up, so nbgrader stops here: "
                     f"{type(error).__name__}: {error}")


try:
    from kit.course import course, db_url
    from kit.nbgrader_glue import configure

    COURSE = course(ROOT)
    DB_URL = db_url(ROOT)
except Exception as error:  # a course.toml that does not read, the kit not importable
    stop(error)

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

c.CourseDirectory.root = str(ROOT)
c.CourseDirectory.course_id = COURSE.course_id
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "assignments"
c.CourseDirectory.db_url = DB_URL
# Never copy caches into the release or a student's feedback.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".hypothesis"]

# The exchange students fetch from and submit to (course.toml [exchange]): a folder in the course keeps a
# one-machine course self-contained; on a JupyterHub, the shared folder `python -m kit.hub setup` made.
c.Exchange.root = COURSE.exchange_root or str(ROOT / "exchange")

# Collect takes only hand-ins it can trust (kit/hand_in/): the command and the formgrader's Collect
# button both. Released feedback is readable by its student's account alone.
c.ExchangeFactory.collect = "kit.hand_in.collect.TrustedCollect"
c.ExchangeFactory.release_feedback = "kit.hand_in.feedback.OwnerOnlyReleaseFeedback"

# Stubs raise NotStarted, which names the function still to write (see autograder/judge/exceptions.py).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotStarted()"}

# On nbgrader's stock grading path (KIT_GRADING=in-kernel), every cell, including a student's infinite
# loop, stops after this many seconds (nbgrader 0.9 reads Execute.timeout, not ExecutePreprocessor.timeout).
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True

try:
    configure(c, COURSE)
except Exception as error:
    stop(error)
