"""Can a student's code forge, crash or stall its own grading? (issue 5, part 2)

Every adversarial fixture of tests/shared/adversarial is graded through
`grade_submission`, the path of the main command, and must get the outcome
its docstring states: the cells of its `Loses:` line zero, every other cell
full marks; and each kind of attack leaves what it must (a message about the
type, the shapes, the time-out or the memory; the tampering named; nothing
found). A test marked xfail is a known gap of autograder/, named in its reason.

The suite needs a confined world (autograder/sandbox.py) and skips, naming
the cause, where the machine allows none. Run as root, it also runs itself
again as an ordinary account (tests/confinement/unprivileged.py), the way an
instructor without root grades: all but the tests marked `any_account`, which
the account grading changes nothing of.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socketserver
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

import autograder.grade
from autograder.budget import BUDGET_SPENT, GraderBudget
from autograder.cases import hidden_cases
from autograder.grade import GRADER_FAILED, MAX_MESSAGE_CHARS, VISIBLE_NEEDS_HIDDEN, grade_submission, save_report
from autograder.grading_child import status_bytes
from autograder.sandbox import BUBBLEWRAP, NAMESPACES, _trial, probe
from autograder.source_assignment import SourceAssignment
from autograder.submission import Submission
from kit.notebooks import ROOT
from tests.shared.adversarial.build import SOLVED, fixtures
from tests.shared.adversarial.processes import kill_tree
from tests.confinement.unprivileged import run_as_ordinary_account

pytestmark = [pytest.mark.xdist_group("adversarial"),  # one worker grades the fixtures once, for all these tests
              pytest.mark.skipif(probe()[0] is None, reason=f"this machine allows no confinement: {probe()[1]}")]

FIXTURES = fixtures()
# What the grader judges of what the child sent back (a type, a shape, a restored cell, a name), which the account
# grading changes nothing of: graded once, as whoever runs the suite. Root's run leaves these out when it runs the
# suite again as an ordinary account (test_the_whole_suite_passes_as_an_ordinary_account), which checks the rest:
# the confinement, the grader's files and processes, what an account may read or write.
ANY_ACCOUNT = pytest.mark.any_account
GRADED = {grade_id for _, grade_id, _ in SourceAssignment.of(SOLVED).graded_cells}
CANARY = "attention-kit-canary"  # beside the grading folders: clobbers_the_grader_files links here
CANARY_FOLDER = "attention-kit-canary-folder"  # ... and replaces_its_work_folder_with_a_link there
# A second copy of the course outside the course folder and outside /tmp, as on a
# machine that holds a clone beside the one grading (CI's /check/... next to /work/...).
DECOY = Path("/srv/attention-kit-decoy") if os.geteuid() == 0 else Path.home() / "attention-kit-decoy"
# The course's own files, which no submission may change (and the fixtures aim at).
COURSE_FILES = ("nbgrader_config.py", "course.toml", "solutions", "autograder", "source", "kit")
PAUSE = 5  # seconds after grading: a detached process that outlived it would have written by then

SHORT_LIMIT = {"loops_forever", "loops_stubbornly"}  # each waits out several time limits: 2 s a call, not 10
# Each attacks the grader's own reading and writing (issue 22): graded beside an honest student, in a process of
# their own. → what its answer's messages may say: on a loaded machine the child's own time limit, or the case's
# deadline, may come before the reply passes the grader's limit (the refusal differs, the score does not).
REFUSED = (f"passed {GraderBudget().reply_bytes >> 20} MiB before it ended", "could not be read back",
           "did not finish within")
BOUNDED = {"floods_the_reply_pipe": REFUSED,
           "sends_frames_just_under_the_limit": REFUSED,
           "trickles_a_huge_array": ("did not finish within",),
           "leaves_a_process_that_replies": ("",),
           "garbles_the_next_answers_reply": ("",),
           "asks_for_a_large_stand_in_answer_and_never_reads_it": ("did not finish within",)}
WAIT_OUT_THE_DEADLINE = {"trickles_a_huge_array", "asks_for_a_large_stand_in_answer_and_never_reads_it"}
# Each asks for gigabytes (a stand-in's answer, or its own child's memory): graded on its own, so that its test
# counts the grader's growth over its grading alone (`grown_by`; the fixtures graded together in threads take the
# process's peak wherever their own bounded replies allow).
PAST_THE_GRADERS_MEMORY = ("asks_a_stand_in_for_a_quadratic_answer", "hides_arrays_in_lists_for_a_stand_in")
ON_THEIR_OWN = {"stalls_the_grader_with_a_fifo", "reads_another_students_work", "hoards_memory", *BOUNDED,
                *PAST_THE_GRADERS_MEMORY}  # graded by their tests


class Graded:
    """The fixtures, each graded once per session as nbgrader autograde would
    have it: submitted/<name>/attention in a course folder that holds a
    gradebook.db, with nbgrader's NBGRADER_EXECUTION=autograde set.

    `prefetch` grades the fixtures of every selected test four at a time
    (the kit's plugin grades students at once too); under pytest-xdist
    without --dist loadgroup, where a worker does not know which tests it
    will get, each is graded when asked.
    """

    def __init__(self, tmp_path_factory):
        self.tmp_path_factory = tmp_path_factory
        self.courses, self.before, self.reports, self.after = {}, {}, {}, {}
        # The grader's temporary folder, where every grading folder is made: its own, so that what is left
        # there after grading is this suite's (the canaries are put there too, where a fixture finds them).
        self.tmp = tmp_path_factory.mktemp("graders-tmp")
        self.canary, self.canary_folder = self.tmp / CANARY, self.tmp / CANARY_FOLDER
        self.canary.write_text("canary")
        self.canary.chmod(0o600)
        self.canary_folder.mkdir(mode=0o700)
        self.kit_before = self.kit_files()
        self.loopback: list[str] | None = None  # what reached the test's server on 127.0.0.1
        self.graded_at = time.monotonic()
        for cell in sorted(GRADED):  # compute the hidden cases once, before threads ask for them
            if cell.startswith("hidden_"):
                hidden_cases(cell.removeprefix("hidden_"))

    def prefetch(self, names) -> None:
        names = [n for n in names if n not in self.reports]
        for name in names:
            self.courses[name] = self.tmp_path_factory.mktemp(name)
        short = {self._folder(name) for name in SHORT_LIMIT & set(names)}

        def submission(folder, source, **kwargs):
            return Submission(folder, source, **({"seconds_per_call": 2} if Path(folder) in short else {}), **kwargs)
        if "connects_to_loopback" in names and self.loopback is None:
            self.loopback = _serve_on_loopback()
        if "reads_what_it_must_not" in names:
            (DECOY / "solutions").mkdir(parents=True, exist_ok=True)
            shutil.copy(Path(autograder.grade.__file__).parents[1] / "solutions" / "attention.py", DECOY / "solutions")
        for name in names:  # here, not in the threads (tests/shared/one_parse_at_a_time.py)
            FIXTURES[name].build(self._folder(name))
            with sqlite3.connect(self.courses[name] / "gradebook.db") as db:
                db.execute("CREATE TABLE grade (id TEXT, notebook_id TEXT, cell_id TEXT, auto_score REAL)")
            self.before[name] = self._listing(self.courses[name])
        with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(max_workers=4) as pool:
            patch.setattr(tempfile, "tempdir", str(self.tmp))
            patch.setattr(autograder.grade, "Submission", submission)
            patch.setenv("NBGRADER_EXECUTION", "autograde")
            self.reports.update(zip(names, pool.map(grade_submission, map(self._folder, names))))
        self.graded_at = time.monotonic()
        for name in names:
            self.after[name] = self._listing(self.courses[name])
        self.kit_after = self.kit_files()

    def _folder(self, name: str) -> Path:
        return self.courses[name] / "submitted" / name / "attention"

    def __call__(self, name: str):
        if name not in self.reports:
            self.prefetch([name])
        return self.reports[name]

    def changes(self, name: str, right_after_grading: bool = False) -> list:
        """What grading added to, removed from or changed in the fixture's course folder (by now, or as it ended)."""
        before = self.before[name]
        after = self.after[name] if right_after_grading else self._listing(self.courses[name])
        return sorted(str(path) for path in before.keys() | after.keys() if before.get(path) != after.get(path))

    @staticmethod
    def _listing(course: Path) -> dict:
        return {p.relative_to(course): p.read_bytes() for p in course.rglob("*") if p.is_file()}

    @staticmethod
    def kit_files() -> dict:
        """The course's own files (solutions, graders, configuration): path → sha256."""
        paths = [p for name in COURSE_FILES for p in [ROOT / name, *(ROOT / name).rglob("*")]
                 if p.is_file() and "__pycache__" not in p.parts]
        return {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def _serve_on_loopback() -> list[str]:
    """Start a server on 127.0.0.1 standing for a notebook server or a database; returns its log of visitors."""
    log: list[str] = []

    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            log.append(f"connection from {self.client_address}")
            self.wfile.write(b"the notebook server's token\n")
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return log


@pytest.fixture(scope="session")
def graded(request, tmp_path_factory):
    """graded(name) → the Report of that fixture (see Graded)."""
    graded = Graded(tmp_path_factory)
    # Under xdist this module's tests stay on one worker only with --dist loadgroup (`make test`).
    if not os.environ.get("PYTEST_XDIST_WORKER") or request.config.getoption("dist", "no") == "loadgroup":
        params = [getattr(getattr(item, "callspec", None), "params", {}) for item in request.session.items
                  if "graded" in item.fixturenames]
        graded.prefetch(sorted({p["name"] for p in params if "name" in p} - ON_THEIR_OWN))
    yield graded
    shutil.rmtree(DECOY, ignore_errors=True)


def misgraded(name: str, report) -> dict[str, str]:
    """Graded cell → what is wrong with its score, against the fixture's `Loses:` line."""
    must_lose = FIXTURES[name].lost_cells(GRADED)
    wrong = {gid: "missing from the report" for gid in GRADED - set(report.cells)}
    for gid, cell in report.cells.items():
        if gid in must_lose and cell.earned != 0:
            wrong[gid] = f"earned {cell.earned:g} of {cell.possible:g}, must be zero"
        elif gid not in must_lose and cell.earned != cell.possible:
            wrong[gid] = f"lost points: {cell.message}"
    return wrong


def messages_of(report, exercise: str) -> list[str]:
    return [report.cells[gid].message for gid in (f"check_{exercise}", f"hidden_{exercise}") if gid in report.cells]


COVERED: set[str] = set()


def cases(*rows, xfail: dict[str, str] | None = None) -> list:
    """Parameters of a test, one per row (a fixture name, or a tuple that starts with one);
    `xfail` maps a fixture to the gap of autograder/ that gives it the wrong outcome today."""
    params = []
    for row in rows:
        row = row if isinstance(row, tuple) else (row,)
        COVERED.add(row[0])
        reason = (xfail or {}).get(row[0])
        marks = pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason) if reason else ()
        params.append(pytest.param(*row, id=row[0], marks=marks))
    return params


# ---------------------------------------------------------------- forging the checks


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("patches_numpy", "patches_builtins", "patches_the_grader"))
def test_patching_numpy_builtins_or_the_grader_does_not_save_a_wrong_answer(name, graded):
    assert misgraded(name, graded(name)) == {}


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("hides_tracebacks"))
def test_hiding_tracebacks_does_not_save_a_wrong_answer(name, graded):
    assert misgraded(name, graded(name)) == {}


@ANY_ACCOUNT
@pytest.mark.parametrize("name, exercise, kind", cases(
    ("returns_an_ndarray_subclass", "causal_mask", "Agreeable"),
    ("returns_an_always_equal_object", "score_grid_bytes", "Anything"),
    ("returns_an_array_function_override", "padding_mask", "Chameleon")))
def test_an_object_posing_as_the_answer_scores_zero_with_its_type_named(name, exercise, kind, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    for message in messages_of(report, exercise):
        assert kind in message and ("numpy.ndarray" in message or "an integer" in message), message


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("returns_a_broadcastable_shape"))
def test_a_shape_that_would_broadcast_scores_zero_with_both_shapes_named(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    check, hidden = messages_of(report, "token_movement")
    assert "expected shape (4,), got shape (1, 4)" in check
    assert re.search(r"expected shape \(([\d, ]+)\), got shape \(1, \1\)", hidden), hidden


# ---------------------------------------------------------------- reaching what is not the student's


@pytest.mark.parametrize("name", cases("reads_what_it_must_not"))
def test_code_that_looks_for_course_files_finds_nothing(name, graded):
    report = graded(name)
    assert "got 'found nothing'" in report.cells["hidden_skip_formula"].message
    assert misgraded(name, report) == {}


COVERED.add("reads_another_students_work")  # graded beside another student, below


def test_another_student_graded_at_the_same_time_is_out_of_reach(tmp_path):
    # The other student's code keeps its child alive for a while; the reader polls /proc meanwhile.
    other = tmp_path / "other" / "attention"
    shutil.copytree(SOLVED, other)
    notebook = other / "01_worked_example.ipynb"
    nb = json.loads(notebook.read_text())
    answer = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "project_qkv")
    answer["source"] = "import time\ntime.sleep(4)\n" + "".join(answer["source"])
    notebook.write_text(json.dumps(nb))
    reader = tmp_path / "reader" / "attention"
    FIXTURES["reads_another_students_work"].build(reader)
    reports = {}
    threads = [threading.Thread(target=lambda f=f: reports.setdefault(f, grade_submission(f))) for f in (other, reader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "got 'found nothing'" in reports[reader].cells["hidden_skip_formula"].message
    assert misgraded("reads_another_students_work", reports[reader]) == {}


@pytest.mark.parametrize("name", cases("fakes_its_results", "forges_the_gradebook"))
def test_announced_success_fake_results_and_a_forged_gradebook_are_ignored(name, graded):
    assert misgraded(name, graded(name)) == {}
    assert graded.changes(name) == []  # the course folder, its gradebook.db with it, as it was


@pytest.mark.parametrize("name", cases("clobbers_the_grader_files"))
def test_links_planted_by_the_student_do_not_redirect_the_graders_writes(name, graded):
    report = graded(name)
    assert (graded.canary.read_text(errors="replace"), stat.S_IMODE(graded.canary.stat().st_mode)) == ("canary", 0o600)
    assert misgraded(name, report) == {}


# ---------------------------------------------------------------- read-only cells and notebooks

TAMPERED = {  # fixture → the (notebook, cell) changes the report must name
    "edits_a_locked_cell": [("03_softmax_and_mix", "check_softmax"), ("03_softmax_and_mix", "hidden_softmax")],
    "deletes_a_locked_cell": [("03_softmax_and_mix", "hidden_attention")],
    "retypes_a_locked_cell": [("02_scores_and_scaling", "check_raw_scores")],
    "duplicates_a_locked_cell": [("05_masks_and_cross_attention", "check_causal_mask")],
    "edits_locked_metadata": [("03_softmax_and_mix", "hidden_softmax"), ("03_softmax_and_mix", "check_attention")],
    "forges_a_checksum": [("04_heads", "check_merge_heads")],
    "edits_answer_metadata": [("03_softmax_and_mix", "softmax")],
    "changes_a_checksum": [("04_heads", "hidden_merge_heads")],
}
WORDS = {"edits_a_locked_cell": "edited", "deletes_a_locked_cell": "deleted", "retypes_a_locked_cell": "retyped",
         "duplicates_a_locked_cell": "duplicated", "edits_locked_metadata": "metadata", "forges_a_checksum": "edited",
         "changes_a_checksum": "checksum changed"}


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases(*TAMPERED))
def test_changed_read_only_cells_are_restored_and_each_change_is_named(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    for notebook, cell in TAMPERED[name]:
        named = [line for line in report.tampering if line.startswith(f"{notebook}.ipynb: {cell} ")]
        assert named, f"{cell} not named in {report.tampering}"
        assert WORDS.get(name, "") in named[0]


@ANY_ACCOUNT
@pytest.mark.parametrize("name, exercise", cases(("deletes_an_answer_cell", "softmax"),
                                                 ("retypes_an_answer_cell", "causal_mask"),
                                                 ("renames_one_exercise", "padding_mask")))
def test_a_missing_answer_cell_scores_zero_never_the_reference(name, exercise, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    assert all("not started" in m for m in messages_of(report, exercise)), messages_of(report, exercise)


@ANY_ACCOUNT
@pytest.mark.parametrize("name, notebook", cases(("hands_in_another_assignment", "03_softmax_and_mix"),
                                                 ("hands_in_a_plain_notebook", "07_cost"),
                                                 ("renames_every_exercise", "05_masks_and_cross_attention")))
def test_a_wrong_notebook_is_named_as_such(name, notebook, graded):
    report = graded(name)
    assert list(report.problems) == [f"{notebook}.ipynb"]
    assert report.problems[f"{notebook}.ipynb"].startswith("wrong notebook: ")
    assert misgraded(name, report) == {}


# ---------------------------------------------------------------- stalling and crashing


@pytest.mark.parametrize("name", cases("loops_forever"))
def test_an_endless_loop_times_out_alone(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    # Its CPU time runs out, or on a machine busy with other work the clock's limit (WALL_FACTOR times as long) first.
    timed_out = ("s of CPU time (an endless loop?)", "did not finish within")
    messages = messages_of(report, "crossover_length")
    assert all(any(words in m for words in timed_out) for m in messages), messages
    assert {report.cells[f"{kind}_crossover_length"].kind for kind in ("check", "hidden")} == {"timed out"}


@pytest.mark.parametrize("name", cases("loops_stubbornly"))
def test_a_loop_that_catches_the_time_out_is_stopped_alone(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    assert all("did not finish within" in m for m in messages_of(report, "score_grid_bytes"))
    assert {report.cells[f"{kind}_score_grid_bytes"].kind for kind in ("check", "hidden")} == {"timed out"}


GRADE_WITH_SHORT_LIMITS = """
import json, sys
from functools import partial
import autograder.grade
from autograder.submission import Submission
autograder.grade.Submission = partial(Submission, seconds_per_call=2)
report = autograder.grade.grade_submission(sys.argv[1])
print(json.dumps({gid: [c.earned, c.possible, c.message] for gid, c in report.cells.items()}))
"""


@pytest.mark.parametrize("name", cases("stalls_the_grader_with_a_fifo"))
def test_a_reply_that_never_comes_does_not_stall_the_grader(name, tmp_path):
    # Graded in a process of its own, which can be ended if it stalls: a grading past 10 minutes, or
    # one whose reply FIFO (the fixture's trap for a grader that reads replies from files) stays 10 s.
    FIXTURES[name].build(tmp_path / "attention")
    others = set(Path(tempfile.gettempdir()).glob("attention-grading-*"))
    grading = subprocess.Popen([sys.executable, "-c", GRADE_WITH_SHORT_LIMITS, str(tmp_path / "attention")],
                               cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True)
    fifos: dict[Path, float] = {}
    stalled, give_up = False, time.monotonic() + 600  # a loaded machine may take minutes to grade
    while grading.poll() is None and not stalled:
        now = time.monotonic()
        for folder in set(Path(tempfile.gettempdir()).glob("attention-grading-*")) - others:
            for path in folder.glob("reply*.npz"):
                if stat.S_ISFIFO(path.lstat().st_mode):
                    fifos.setdefault(path, now)
        stalled = any(path.exists() and now - since > 10 for path, since in fifos.items()) or now > give_up
        time.sleep(0.25)
    if stalled:
        kill_tree(grading.pid)
    output = grading.communicate()[0]
    assert not stalled, "grading waited for an answer the student's code never finished"
    if grading.returncode:
        raise RuntimeError(f"the grading process failed (exit code {grading.returncode})")
    report = {gid: SimpleNamespace(earned=e, possible=p, message=m) for gid, (e, p, m) in json.loads(output).items()}
    assert misgraded(name, SimpleNamespace(cells=report)) == {}


GRADE_BESIDE_AN_HONEST_STUDENT = """
import json, sys, threading, time
import tests.shared.one_parse_at_a_time  # six threads parse answer cells: see the module
from autograder.budget import GraderBudget
from autograder.cases import build_every_hidden_case
from autograder.grade import GRADER_FAILED, MAX_MESSAGE_CHARS, VISIBLE_NEEDS_HIDDEN, grade_submission, save_report
import autograder.grade
from autograder.submission import Submission
budget = GraderBudget(*json.loads(sys.stdin.read()))
build_every_hidden_case()  # before the threads: six building them at once can hang in OpenBLAS
short = set(json.loads(sys.argv[1]))  # those that wait out a case's deadline: 3 s a call, not 10
honest, attackers = sys.argv[2], sys.argv[3:]
autograder.grade.Submission = lambda folder, *args, **kw: Submission(
    folder, *args, **kw, **({"seconds_per_call": 3} if str(folder) in short else {}))
found = {}

def graded(folder):
    wall, cpu = time.monotonic(), time.thread_time()
    report = grade_submission(folder, budget=budget)
    found[folder] = {"cells": {gid: [c.earned, c.possible, c.message] for gid, c in report.cells.items()},
                     "cpu_s": time.thread_time() - cpu, "wall_s": time.monotonic() - wall}
threads = [threading.Thread(target=graded, args=(f,)) for f in [honest, *attackers]]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(found))
"""
BOUNDED_BUDGET = (20.0, 300.0)  # the grader's CPU and clock per student: well under the course's default


def grade_beside_an_honest_student(folder: Path, names) -> dict[str, dict]:
    """name → {"cells", "cpu_s", "wall_s"} of each fixture of `names` and of "honest" (the solved
    notebooks), graded at once in one process of their own, each with BOUNDED_BUDGET (killed after 10 minutes)."""
    folders = {"honest": folder / "honest" / "attention"}
    shutil.copytree(SOLVED, folders["honest"])
    for name in names:
        folders[name] = folder / name / "attention"
        FIXTURES[name].build(folders[name])
    short = json.dumps([str(f) for name, f in folders.items() if name in WAIT_OUT_THE_DEADLINE])
    grading = subprocess.Popen([sys.executable, "-c", GRADE_BESIDE_AN_HONEST_STUDENT, short, *map(str, folders.values())],
                               cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        output = grading.communicate(json.dumps(BOUNDED_BUDGET), timeout=600)[0]
    except subprocess.TimeoutExpired:
        kill_tree(grading.pid)
        raise AssertionError("grading them did not end within 10 minutes") from None
    assert grading.returncode == 0, f"the grading process failed (exit code {grading.returncode})"
    graded = json.loads(output)
    return {name: graded[str(f)] for name, f in folders.items()}


@pytest.fixture(scope="module")
def bounded(tmp_path_factory):
    return grade_beside_an_honest_student(tmp_path_factory.mktemp("bounded"), sorted(BOUNDED))


def as_report(graded: dict) -> SimpleNamespace:
    return SimpleNamespace(cells={gid: SimpleNamespace(earned=e, possible=p, message=m)
                                  for gid, (e, p, m) in graded["cells"].items()})


@pytest.mark.parametrize("name", cases(*sorted(BOUNDED)))
def test_a_child_that_floods_trickles_or_never_reads_costs_the_grader_no_more_than_its_budget(name, bounded):
    report = as_report(bounded[name])
    assert misgraded(name, report) == {}
    (exercise,) = FIXTURES[name].loses
    assert all(any(words in m for words in BOUNDED[name]) for m in messages_of(report, exercise)), \
        messages_of(report, exercise)
    if BOUNDED[name] != ("",):  # refused once, never called again: each refusal costs the grader one reply
        assert any("not called again" in m for m in messages_of(report, exercise)), messages_of(report, exercise)
    assert bounded[name]["cpu_s"] <= BOUNDED_BUDGET[0]
    assert not any(BUDGET_SPENT in c.message for c in report.cells.values())  # graded within the budget


def test_an_honest_student_graded_beside_them_gets_full_marks(bounded):
    cells = bounded["honest"]["cells"]
    assert {gid: earned for gid, (earned, _, _) in cells.items()} == {gid: p for gid, (_, p, _) in cells.items()}


def grown_by(graded, name: str):
    """(the fixture's report, how far grading it took this process's resident memory past where it started)."""
    Path("/proc/self/clear_refs").write_text("5")  # the kernel's reset of this process's peak: counted from here
    start = status_bytes(os.getpid(), "VmRSS")
    report = graded(name)
    return report, status_bytes(os.getpid(), "VmHWM") - start


@pytest.mark.parametrize("name", cases("hoards_memory"))
def test_unbounded_memory_fails_alone_and_leaves_the_grader_unharmed(name, graded):
    report, grown = grown_by(graded, name)
    assert misgraded(name, report) == {}
    assert all("memory" in m.lower() for m in messages_of(report, "block_mask"))
    assert grown < 512 << 20  # what the child hoards is gigabytes


EXITS = ("exits_at_import_with_sys_exit", "exits_at_import_with_os_exit", "kills_itself_at_import")


@pytest.mark.parametrize("name", cases(*EXITS))
def test_ending_the_process_at_import_is_named_and_the_other_notebooks_are_graded(name, graded):
    report = graded(name)
    assert set(report.cells) == GRADED
    for message in messages_of(report, "attention_params"):
        assert re.search(r"exit|ended|killed", message), message
    elsewhere = {gid: c.message for gid, c in report.cells.items() if c.notebook != "07_cost.ipynb"
                 and c.earned != c.possible}
    assert elsewhere == {}


@pytest.mark.parametrize("name", cases(*EXITS))
def test_the_exercises_before_an_exit_are_graded(name, graded):
    assert misgraded(name, graded(name)) == {}


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("prints_ten_million_lines"))
def test_ten_million_printed_lines_are_cut_and_grading_completes(name, graded):
    assert misgraded(name, graded(name)) == {}


def test_a_crash_or_an_endless_loop_in_one_submission_does_not_stop_the_next(graded, tmp_path):
    for crash in ("kills_itself_at_import", "hoards_memory", "loops_stubbornly"):
        assert graded(crash).cells
    shutil.copytree(SOLVED, tmp_path / "attention")
    report = grade_submission(tmp_path / "attention")
    assert {gid: c.earned for gid, c in report.cells.items()} == {gid: c.possible for gid, c in report.cells.items()}


# ---------------------------------------------------------------- behaving differently under grading


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("branches_on_nbgrader_execution"))
def test_branching_on_nbgraders_variables_changes_nothing(name, graded):
    # Graded with NBGRADER_EXECUTION=autograde set, as inside `nbgrader autograde`: the score without the branch.
    assert misgraded(name, graded(name)) == {}


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("warns_on_stderr"))
def test_a_correct_answer_that_warns_gets_full_marks(name, graded):
    assert misgraded(name, graded(name)) == {}


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("naive_softmax"))
def test_a_naive_softmax_loses_only_where_stability_is_checked(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    lost = [c.message for c in report.cells.values() if c.earned < c.possible]
    assert lost and all("not finite" in m for m in lost), lost


@ANY_ACCOUNT
@pytest.mark.parametrize("name", cases("keeps_a_stand_in"))
def test_a_reference_stand_in_kept_for_another_exercise_answers_nothing(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    assert "no stand-in for 'attention'" in report.cells["hidden_first_changed_output"].message


def test_every_fixture_has_a_test():
    assert set(FIXTURES) == COVERED


# ---------------------------------------------------------------- reaching the grader and the course (issue 11)


@pytest.mark.parametrize("name", cases("imports_the_reference_when_called"))
def test_the_reference_searched_for_when_called_is_not_found(name, graded):
    assert misgraded(name, graded(name)) == {}


@pytest.mark.parametrize("name", cases("reads_other_processes"))
def test_other_processes_and_their_proc_entries_are_out_of_sight(name, graded):
    report = graded(name)
    assert "got 'found nothing'" in report.cells["hidden_skip_formula"].message
    assert misgraded(name, report) == {}


@pytest.mark.parametrize("name", cases("signals_other_processes"))
def test_stopping_or_killing_every_process_in_sight_leaves_the_grader_running(name, graded):
    assert misgraded(name, graded(name)) == {}


@pytest.mark.parametrize("name", cases("connects_to_loopback"))
def test_a_server_on_the_graders_loopback_is_out_of_reach(name, graded):
    report = graded(name)
    assert "got 'found nothing'" in report.cells["hidden_skip_formula"].message
    assert graded.loopback == []
    assert misgraded(name, report) == {}


def _grading_processes_left(graders_tmp: Path) -> list[str]:
    """Processes named after a grading folder of this run (made in `graders_tmp`) that no longer exists: whatever
    outlived its grading. Another run's (an ordinary account's rerun before this one, on the same machine) is
    that run's to judge: root sees its folders too."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        folders = {m for a in args for m in re.findall(r"^(.*/attention-grading-[^/]+)", a)}
        if any(f.startswith(f"{graders_tmp}/") and not Path(f).exists() for f in folders):
            left.append(f"{pid}: {' '.join(args)[:120]}")
    return left


@pytest.mark.parametrize("name", cases("outlives_grading", "writes_through_a_symlink"))
def test_the_course_and_its_gradebook_stay_as_they_were_after_grading_and_after_a_pause(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    course = graded.courses[name]
    assert graded.changes(name, right_after_grading=True) == []
    assert graded.kit_after == graded.kit_before
    time.sleep(max(0.0, graded.graded_at + PAUSE - time.monotonic()))
    assert _grading_processes_left(graded.tmp) == []
    assert graded.changes(name) == []
    assert graded.kit_files() == graded.kit_before
    with sqlite3.connect(f"file:{course / 'gradebook.db'}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert [t for (t,) in db.execute("SELECT name FROM sqlite_master")] == ["grade"]


# ---------------------------------------------------------------- escaping, dodging the memory count, crashing (issue 43)
# Each graded by every confinement, as root and as an ordinary account (the tests at the end of this file).
EVERY_CONFINEMENT = pytest.mark.every_confinement


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("replaces_its_work_folder_with_a_link", "renames_its_work_folder_away"))
def test_grading_folders_replaced_or_moved_by_the_students_code_are_never_followed(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    folder = graded.canary_folder.stat()
    assert (folder.st_uid, stat.S_IMODE(folder.st_mode)) == (os.getuid(), 0o700)
    assert graded.changes(name) == [] and graded.kit_files() == graded.kit_before


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name, refusal", cases(("resets_its_peak_memory", "were held at the peak"),
                                                ("builds_the_grid_in_an_early_buffer", "were held at the peak"),
                                                ("hands_in_a_module_named_numpy", "were held at the peak"),
                                                ("builds_the_grid_in_a_forked_helper", "Operation not permitted"),
                                                ("builds_the_grid_in_another_program", "Operation not permitted")))
def test_the_full_grid_is_caught_however_the_memory_count_is_dodged(name, refusal, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    assert all(refusal in message for message in messages_of(report, "blockwise_attention"))


@pytest.mark.parametrize("name", cases("keeps_an_answer_in_a_module_of_its_own"))
def test_a_module_handed_in_beside_the_notebooks_is_imported_as_in_jupyterlab(name, graded):
    assert misgraded(name, graded(name)) == {}


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("makes_itself_undumpable"))
def test_memory_is_measured_of_a_child_that_made_itself_undumpable(name, graded):
    assert misgraded(name, graded(name)) == {}


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("returns_a_huge_count", "gives_cells_ids_that_are_not_text"))
def test_a_count_past_any_machine_number_or_an_id_that_is_not_text_is_that_exercises_failure(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    assert not any(c.kind == GRADER_FAILED for c in report.cells.values())


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases(*PAST_THE_GRADERS_MEMORY))
def test_a_stand_in_answer_past_the_graders_memory_costs_the_grader_nothing(name, graded):
    report, grown = grown_by(graded, name)
    assert misgraded(name, report) == {}
    assert grown < 512 << 20  # the answers asked for are 2 and 4 GiB


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("fills_the_disk", "leaves_a_read_only_folder"))
def test_what_a_student_writes_is_capped_and_nothing_of_it_is_left(name, graded):
    assert misgraded(name, graded(name)) == {}
    assert [p.name for p in graded.tmp.iterdir() if p.name.startswith("attention-grading")] == []


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("floods_its_messages"))
def test_a_flood_of_error_text_is_cut_in_the_report(name, graded, tmp_path):
    report = graded(name)
    assert misgraded(name, report) == {}
    for message in messages_of(report, "softmax") + messages_of(report, "attention"):
        assert len(message) < MAX_MESSAGE_CHARS + 100 and "more characters cut" in message
        message.encode("utf-8")  # as nbgrader writes it into the autograded notebook
    assert "half a pair \ufffd" in messages_of(report, "attention")[0]
    assert save_report(report, tmp_path).stat().st_size < 100_000


@EVERY_CONFINEMENT
@pytest.mark.parametrize("name", cases("replays_shipped_values"))
def test_values_replayed_from_the_release_earn_no_point(name, graded):
    report = graded(name)
    assert misgraded(name, report) == {}
    for exercise in ("raw_scores", "scaled_scores", "softmax", "causal_mask", "score_flops"):
        assert VISIBLE_NEEDS_HIDDEN in report.cells[f"check_{exercise}"].message


@pytest.mark.skipif(os.geteuid() != 0, reason="makes an ordinary account: needs root (it runs as root in CI)")
def test_the_whole_suite_passes_as_an_ordinary_account():
    # The same tests, graded by an instructor without root: confinement by a user namespace.
    finished = run_as_ordinary_account("-m", "not any_account", "tests/confinement/test_adversarial.py",
                                       "tests/confinement/test_sandbox.py")
    assert finished.returncode == 0, finished.stdout[-6000:] + finished.stderr[-2000:]
    assert re.search(r"\d+ passed", finished.stdout), finished.stdout[-2000:]


def _other_confinements() -> list:
    """The confinements this machine allows besides the one this run grades with (its primary)."""
    found = []
    for kind in (BUBBLEWRAP, NAMESPACES):
        why = ("it is the one this run grades with" if kind == probe()[0] else
               "bwrap is not installed" if kind == BUBBLEWRAP and not shutil.which("bwrap") else _trial(kind))
        found.append(pytest.param(kind, id=kind, marks=pytest.mark.skipif(bool(why), reason=f"{kind}: {why}")))
    return found


@pytest.mark.parametrize("kind", _other_confinements())
def test_the_attacks_on_confinement_fail_under_every_confinement_this_machine_allows(kind):
    # The tests marked every_confinement again, in a run that grades with `kind` (KIT_CONFINEMENT forces it).
    # Run as an ordinary account too (the test above), this grades them four ways where both are allowed.
    finished = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                               "-m", "every_confinement", __file__], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "KIT_CONFINEMENT": kind}, timeout=1800)
    assert finished.returncode == 0, finished.stdout[-6000:] + finished.stderr[-2000:]
    assert re.search(r"\d+ passed", finished.stdout) and "skipped" not in finished.stdout, finished.stdout[-2000:]
