"""A class of synthetic students with known mistakes, graded for real (for tests/report/test_report.py).

Each student is the solved notebooks with a seeded random set of known mistakes
spliced in (files of tests/shared/corpus/mistakes/, at most one per exercise), some
exercises left as the release's stub, and some submissions late. Every student
is graded by the kit's own grader (`grade_submission`, in its confined child),
its report saved where `nbgrader autograde` saves it, and its scores recorded
in a gradebook through nbgrader's API, as autograde's SaveScoresFromReport and
AssignLatePenalties do. The grader sees each distinct notebook once
(`grade_distinct_notebooks`: the hundred students hand in 330 distinct notebooks,
not 900, packed in 74 folders) and each student's report is composed of its
notebooks' verdicts; tests/report/test_report.py re-grades sampled students directly
and checks their reports are the same (but for a measured peak memory, which
varies by a tenth of a MiB between any two gradings). On a quiet 2-core machine a
hundred students cost about 70 CPU seconds (50 s of wall time) this way, against
155 (100 s) grading every student's folder and four minutes of wall time through
`nbgrader autograde`.
"""

from __future__ import annotations

import json
import random
import tempfile
import warnings
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path

from nbgrader.api import Gradebook, GradeCell
from sqlalchemy.exc import SAWarning

from autograder.cases import build_every_hidden_case
from autograder.grade import Report, grade_submission, save_report
from autograder.source_assignment import SourceAssignment
from kit import nbgrader_cli
from kit.course import policy as course_policy
from kit.nbgrader_glue.late import late_penalty
from kit.notebooks import ROOT
from tests.shared.corpus_submissions import CORPUS, cells_of, mistake_name, splice

SOURCE = ROOT / "source" / "attention"
RELEASE = ROOT / "assignments" / "attention"
COURSE_ID = "synthetic"


@dataclass
class Injected:
    """What was put into the class: every set holds student ids."""
    students: list[str]
    mistakes: dict[str, dict[str, set[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(set)))
    not_started: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    hours_late: dict[str, int] = field(default_factory=dict)


def _stubs() -> dict[str, str]:
    """Answer cell id → its source in the student release (the stub)."""
    stubs = {}
    for path in RELEASE.glob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                stubs[meta["grade_id"]] = "".join(cell["source"])
    return stubs


# Mistakes catalogued after tests/shared/synthetic_outputs.json was recorded: never drawn, so the class stays the one
# recorded (drawing them too would change which answers every later student gets: another class).
DRAWN_SINCE_NEVER = frozenset({"causal_mask__keep_mask.py", "padding_mask__keep_mask.py",
                               # catalogued at stop 68
                               "softmax__whole_array.py", "attention__weights_returned_transposed.py",
                               "causal_mask__minus_inf_times_grid.py", "attention_share__integer_division.py"})


def plan(n_students: int, seed: int, p_mistake: float = 0.2, p_not_started: float = 0.04,
         p_late: float = 0.1) -> tuple[Injected, dict[str, dict[str, str]]]:
    """What each student does, drawn with `seed`; returns it and student → answer cells to splice in."""
    rng = random.Random(seed)
    # each corpus file read once (cells_of reads the solved notebooks too), however many students draw it
    cells, mistake = lru_cache(cells_of), lru_cache(mistake_name)
    by_exercise = defaultdict(list)
    for path in sorted((CORPUS / "mistakes").glob("*.py")):
        if path.name not in DRAWN_SINCE_NEVER:
            by_exercise[path.name.split("__")[0]].append(path)
    stubs = _stubs()
    injected = Injected([f"s{i:03d}" for i in range(n_students)])
    answers = {}
    for student in injected.students:
        spliced = {}
        for exercise, files in by_exercise.items():
            draw = rng.random()
            if draw < p_mistake:
                chosen = rng.choice(files)
                spliced.update(cells(chosen))
                injected.mistakes[exercise][mistake(chosen)].add(student)
            elif draw < p_mistake + p_not_started:
                spliced[exercise] = stubs[exercise]
                injected.not_started[exercise].add(student)
        if rng.random() < p_late:
            injected.hours_late[student] = rng.randint(1, 60)
        answers[student] = spliced
    return injected, answers


def write_config(course: Path, db_url: str) -> None:
    (course / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.CourseDirectory.db_url = {db_url!r}\n")
    (course / "source").mkdir(exist_ok=True)
    (course / "source" / "attention").symlink_to(SOURCE)


def _register(course: Path, db_url: str, duedate: str) -> None:
    """The assignment (by nbgrader's own command, run in this process, which makes the gradebook) and its
    graded cells."""
    nbgrader_cli.run_here("db", "assignment", "add", "attention", f"--duedate={duedate}", cwd=course)
    with Gradebook(db_url, COURSE_ID) as gb:
        _add_cells(gb)


def _add_cells(gb: Gradebook) -> None:
    for notebook, grade_id, points in SourceAssignment.of(SOURCE).graded_cells:
        gb.update_or_create_notebook(notebook.removesuffix(".ipynb"), "attention")
        gb.update_or_create_grade_cell(grade_id, notebook.removesuffix(".ipynb"), "attention",
                                       max_score=points, cell_type="code")


def _notebooks(folder: Path, source: Path) -> dict[str, bytes]:
    """Notebook name → its bytes, for every notebook of `source`; the folder must hold exactly those."""
    names = sorted(p.name for p in source.glob("*.ipynb"))
    held = sorted(p.name for p in folder.glob("*.ipynb"))
    if held != names:
        raise ValueError(f"{folder}: notebooks {held}, not those of {source}: {names}")
    return {name: (folder / name).read_bytes() for name in names}


def grade_distinct_notebooks(folders: dict[str, Path], source: Path = SOURCE) -> dict[str, Report]:
    """Each student's report from grading every distinct notebook once (student → folder → Report).

    A notebook's verdicts depend on its bytes alone: the grader loads each notebook in a fresh namespace
    of its own, answers an exercise's calls to the exercises it is built on with the reference
    (stand-ins), restores read-only cells from `source`, and reports problems and tampering per
    notebook. So the distinct versions of every notebook are packed into as few folders as the
    commonest notebook has versions (a folder holds at most one version of each notebook; the
    notebooks it lacks are "missing" and cost nothing), each graded by `grade_submission`, and a
    student's report takes each notebook's cells, problem and tampering from the folder that graded
    its version. tests/report/test_report.py checks sampled students against grading their folders directly.
    (All of a folder's notebooks run in one child process, so code that changed process-wide state,
    a patched module, could reach another notebook: this is for the corpus's honest mistakes, never
    a grading path.)
    """
    held = {student: _notebooks(folder, source) for student, folder in folders.items()}
    versions: dict[str, dict[bytes, int]] = defaultdict(dict)  # notebook → its bytes → the pack that grades it
    for notebooks in held.values():
        for name, data in notebooks.items():
            versions[name].setdefault(data, len(versions[name]))
    with tempfile.TemporaryDirectory(prefix="distinct-notebooks-") as scratch:
        packs = [Path(scratch) / str(i) for i in range(max(len(v) for v in versions.values()))]
        for pack in packs:
            pack.mkdir()
        for name, by_bytes in versions.items():
            for data, i in by_bytes.items():
                (packs[i] / name).write_bytes(data)
        # Built before the threads, once: two threads building them at once did the work twice, and their
        # first matrix products at the same time once left OpenBLAS waiting forever (in exec_blas).
        build_every_hidden_case()
        with ThreadPoolExecutor(max_workers=2) as pool:
            graded = list(pool.map(lambda pack: grade_submission(pack, source), packs))
    graded_in_order = SourceAssignment.of(source).graded_cells
    order = [grade_id for _, grade_id, _ in graded_in_order]
    cells_of_notebook = defaultdict(list)
    for notebook, grade_id, _ in graded_in_order:
        cells_of_notebook[notebook].append(grade_id)

    def compose(notebooks: dict[str, bytes]) -> Report:
        cells, problems, tampering = {}, {}, []
        for name, data in notebooks.items():
            report = graded[versions[name][data]]
            cells.update((grade_id, report.cells[grade_id]) for grade_id in cells_of_notebook[name])
            if name in report.problems:
                problems[name] = report.problems[name]
            tampering += [t for t in report.tampering if t.startswith(f"{name}: ")]
        return Report({g: cells[g] for g in order}, problems, tampering, graded[0].confinement)
    return {student: compose(notebooks) for student, notebooks in held.items()}


def build_class(course: Path, db_url: str, n_students: int = 100, seed: int = 13) -> Injected:
    """Write, grade and record a synthetic class in `course` (see the module's docstring)."""
    injected, answers = plan(n_students, seed)
    write_config(course, db_url)
    policy = course_policy(ROOT)
    duedate = datetime.fromisoformat(policy["assignment"]["duedate"])

    folders = {student: course / "submitted" / student / "attention" for student in injected.students}
    for student, folder in folders.items():
        splice(answers[student], folder, SOURCE)
    reports = grade_distinct_notebooks(folders, SOURCE)
    for student, report in reports.items():
        save_report(report, course / "autograded" / student / "attention")
    _register(course, db_url, policy["assignment"]["duedate"])
    with Gradebook(db_url, COURSE_ID) as gb, warnings.catch_warnings():
        # nbgrader's add_submission autoflushes half-built objects, which SQLAlchemy warns of, harmlessly
        warnings.simplefilter("ignore", SAWarning)
        # A grade's name (an association proxy) loads its cell with a query of its own, grade by grade
        # (most of this loop's time); the cells' names by id, read once, say the same.
        cell_names = {cell.id: cell.name for cell in gb.db.query(GradeCell)}
        for student in injected.students:
            gb.update_or_create_student(student)
            late = timedelta(hours=injected.hours_late.get(student, 0), minutes=-30)
            submission = gb.add_submission("attention", student, timestamp=(duedate + late).isoformat())
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    grade.auto_score = reports[student].cells[cell_names[grade.cell_id]].earned
                gb.db.flush()
                if submission.total_seconds_late > 0:
                    notebook.late_submission_penalty = min(notebook.score, late_penalty(
                        notebook.score, submission.total_seconds_late, **policy["late"]))
            gb.db.commit()
    return injected
