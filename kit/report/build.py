"""Write a class report: read nbgrader's configuration, collect, draw, render."""

from __future__ import annotations

from pathlib import Path

from nbgrader.apps.baseapp import NbGrader
from nbgrader.coursedir import CourseDirectory

from autograder.grade import writable
from autograder.whole_file import write_bytes_whole
from kit.report.answers import exercises, handed_in
from kit.report.charts import all_charts
from kit.report.collect import ClassResults, collect
from kit.report.page import render
from kit.report.similar_results import Similarity
from kit.report.similarity import similar_answers
from kit.report.summary import summary


def course_directory(root: Path | None = None) -> CourseDirectory:
    """nbgrader's CourseDirectory as nbgrader's own commands configure it, run in `root` (default:
    the current folder): Jupyter's config paths, then the course's nbgrader_config.py. The gradebook
    URL is whatever they say."""
    folder = Path(root or ".").resolve()
    if not (folder / "nbgrader_config.py").is_file():  # nbgrader's defaults would make a new gradebook there
        raise SystemExit(f"{folder} is not a course folder (no nbgrader_config.py): run this in the course folder, "
                         "or give it with --root")
    app = NbGrader()
    if root is not None:
        app.load_cwd_config = False  # the course's config, not the current folder's
    app.initialize(["--log-level=ERROR"], root=str(root) if root else "")
    return app.coursedir


def compare_answers(coursedir: CourseDirectory, assignment: str, results: ClassResults) -> Similarity:
    """The similarity section's findings: every submitting student's answer cells, as handed in, beside the
    release and the reference module (solutions/<assignment>.py in the course, if it is there)."""
    source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    given = exercises(source, Path(coursedir.format_path(coursedir.release_directory, ".", assignment)),
                      Path(coursedir.root) / "solutions" / f"{assignment}.py")
    answers = {s.id: handed_in(Path(coursedir.format_path(coursedir.submitted_directory, s.id, assignment)),
                               set(given), source) for s in results.students}
    return similar_answers(given, answers)


def write_report(coursedir: CourseDirectory, assignment: str, anonymous: bool = False) -> tuple[Path, str]:
    """Write reports/<assignment>/index.html (anonymous.html: no student ids); returns its path and the summary."""
    results = collect(coursedir, assignment)
    similarity = compare_answers(coursedir, assignment, results)
    folder = Path(coursedir.root) / "reports" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / ("anonymous.html" if anonymous else "index.html")
    charts = all_charts(results) if results.students else []  # nothing graded: no chart of nothing
    # A student's folder in bytes that are not UTF-8 is named with U+FFFD where they are (`writable`).
    write_bytes_whole(page, writable(render(results, charts, anonymous, similarity)).encode("utf-8"))  # never half
    return page, writable(summary(results, anonymous, similarity=similarity))
