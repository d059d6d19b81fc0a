"""Can a student forge a hand-in on a shared exchange, or stop the class's collect? (issues 21 and 36)

The exchange is laid out as on a JupyterHub, by `kit.hub`'s set-up, and real
system accounts use it: an instructor who is not root, whose course folder is
mode 700, and students handing in with nbgrader's own `fetch_assignment` and
`submit` (bob's work holds 1,500 empty folders, more than the instructor's
login may hold open at once). One of them, mal, plants every kind of forged
or broken hand-in the issues name straight into the exchange's inbound
folder, and swaps a file for a link while the collect runs. The instructor
runs `nbgrader collect`; for each attack, the attacker gets nothing, the
victim keeps their work, the rest of the class is collected, and the
instructor's files stay byte-identical. Work rewritten while it is collected
is refused, then collected with the time of its last change. Then feedback is
released, and only its owner can read it. Root only: it makes the accounts.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.hand_in import acl
from kit.hub.exchange import make_exchange
from kit.notebooks import ROOT
from tests.shared.accounts import command_as, give, make_account, run_as
from tests.hand_in.open_gate import OpenGate

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes system accounts for the instructor and students: "
                                                          "run as root (CI does)")

INSTRUCTOR, ANN, BOB, CY, MAL = "handin-teach", "handin-ann", "handin-bob", "handin-cy", "handin-mal"
WORK = ROOT / "examples" / "class" / "submitted"  # ann hands in ada's work, bob bo's, cy cy's
COURSE_FILES = ("source", "solutions", "autograder", "kit", "assignments", "course.toml", "nbgrader_config.py")
NBGRADER = ("python", *nbgrader_cli.command()[1:])  # python -m nbgrader, in the accounts' shared environment
SOLVED = "source/attention"  # the instructor's solved notebooks, what an attacker wants collected as theirs


def later(hours: float) -> str:
    """A hand-in time `hours` from now, as nbgrader's submit writes it."""
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=hours)
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def digest(course: Path) -> dict[str, str]:
    files = [p for name in COURSE_FILES for p in sorted((course / name).rglob("*")) + [course / name]
             if p.is_file() and "__pycache__" not in p.parts]
    return {str(p.relative_to(course)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


# What mal plants in the inbound folder: hand-in name → the Python that makes it there, as mal
# (`folder` is the hand-in's path, `solved` the instructor's solved notebooks, `mine` a file of mal's own,
# `anns` ann's submission secret, read from her cache as a 0755 home would let mal; `notebook(name, mode)`
# writes a notebook into the hand-in, `secret(text)` nbgrader's secret file).
ATTACKS = {
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+links": "os.mkdir(folder)\n"
    "for nb in ['01_worked_example.ipynb', '03_softmax_and_mix.ipynb']: os.symlink(f'{solved}/{nb}', f'{folder}/{nb}')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+linked-folder": "os.symlink(solved, folder)",
    f"{ANN}+{ASSIGNMENT}+{later(2)}+forged": "os.mkdir(folder)\n"
    "open(f'{folder}/01_worked_example.ipynb', 'w').write('{}')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+fifo": "os.mkdir(folder); os.mkfifo(f'{folder}/01_worked_example.ipynb')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+sparse": "os.mkdir(folder)\n"
    "with open(f'{folder}/01_worked_example.ipynb', 'w') as f: f.truncate(1 << 30)",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+hard-link": "os.mkdir(folder)\n"
    "os.link(mine, f'{folder}/01_worked_example.ipynb')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+control": "os.mkdir(folder)\n"
    f"open(folder + '/01_worked_example.ipynb\\n[CollectApp | INFO] Collecting submission: {ANN}', 'w').write('x')",
    f"zed+{ASSIGNMENT}+{later(-1)}+off-roster": "os.mkdir(folder)\n"
    "open(f'{folder}/01_worked_example.ipynb', 'w').write('{}')",
    # what an honest student's `cp -r` gives under umask 077: the instructor cannot read it
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+unreadable": "os.mkdir(folder); notebook('01_worked_example', 0o600); secret()",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+timestamp-folder": "os.mkdir(folder); notebook('01_worked_example')\n"
    "os.mkdir(f'{folder}/timestamp.txt'); secret()",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+no-secret": "os.mkdir(folder); notebook('01_worked_example')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+empty-secret": "os.mkdir(folder); notebook('01_worked_example'); secret('')",
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+copied-secret": "os.mkdir(folder); notebook('01_worked_example'); secret(anns)",
    # swapped for a link and back again while the collect runs (SWAPPER); without a secret, so it is refused
    # whichever it was when read (the swapper's own file of the moment, 01_worked_example.ipynb.new, may be
    # listed and gone before it is read)
    f"{MAL}+{ASSIGNMENT}+{later(-1)}+swapped": "os.mkdir(folder); notebook('01_worked_example')",
}
PLANT = """import os
folder, solved, mine, anns = {folder!r}, {solved!r}, {mine!r}, {anns!r}
def notebook(name, mode=0o644):
    fd = os.open(f'{{folder}}/{{name}}.ipynb', os.O_WRONLY | os.O_CREAT, mode)
    os.write(fd, b'{{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}')
    os.close(fd)
def secret(text=os.urandom(64).hex()):
    open(f'{{folder}}/submission_secret.txt', 'w').write(text)
"""
REWRITE = """import sys
with open(sys.argv[1], 'r+b') as f:  # in place: the same inode, its first byte written again
    first = f.read(1)
    f.seek(0)
    f.write(first)
"""
SWAPPER = """import os, sys
name = sys.argv[1]
while True:  # a file, then a link in its place, each put there whole (rename)
    open(name + '.new', 'w').write('{}')
    os.replace(name + '.new', name)
    os.symlink('/etc/hostname', name + '.new')
    os.replace(name + '.new', name)
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory, copy_released):
    """The exchange, the instructor's course in their home (mode 700) with the class on its roster, and
    ann and bob's genuine hand-ins through nbgrader's own commands."""
    shared = Path(tempfile.mkdtemp(prefix="attention-kit-hand-in-", dir="/tmp"))
    shared.chmod(0o755)
    homes = {name: make_account(name) for name in (INSTRUCTOR, ANN, BOB, CY, MAL)}
    exchange = shared / "exchange"
    make_exchange(exchange, COURSE_ID, INSTRUCTOR)
    course = copy_released(homes[INSTRUCTOR] / "course")
    toml = (course / "course.toml").read_text()
    (course / "course.toml").write_text(toml.replace('[exchange]\n', f'[exchange]\nroot = "{exchange}"\n', 1)
                                        .replace('\nroot = ""\n', "\n", 1)
                                        .replace("clock_slack_seconds = 60", "clock_slack_seconds = 1"))
    give(INSTRUCTOR, course)
    course.chmod(0o700)
    nbgrader = NBGRADER
    for student in (ANN, BOB, CY, MAL):
        run_as(INSTRUCTOR, *nbgrader, "db", "student", "add", student, cwd=course)
    run_as(INSTRUCTOR, *nbgrader, "release_assignment", ASSIGNMENT, cwd=course)
    for student, work in ((ANN, "ada"), (BOB, "bo"), (CY, "cy")):
        home = homes[student]
        (home / ".jupyter").mkdir()
        (home / ".jupyter" / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\nc.Exchange.root = {str(exchange)!r}\n")
        give(student, home / ".jupyter")
        run_as(student, *nbgrader, "fetch_assignment", ASSIGNMENT, cwd=home)
        for notebook in (WORK / work / ASSIGNMENT).glob("*.ipynb"):
            shutil.copyfile(notebook, home / ASSIGNMENT / notebook.name)
        if student == BOB:  # more folders than the instructor's login may hold open at once (1,024)
            for i in range(1500):
                (home / ASSIGNMENT / "scratch" / f"{i:04d}").mkdir(parents=True)
        give(student, home / ASSIGNMENT)
        if student != CY:  # cy hands in later (test_work_rewritten_while_it_is_collected_...)
            run_as(student, *nbgrader, "submit", ASSIGNMENT, cwd=home)
    yield exchange, course, homes
    shutil.rmtree(shared)


@pytest.fixture(scope="module")
def attacked(hub):
    """mal's every attack planted, then `nbgrader collect` by the instructor: (collect's log, course digest
    before, after)."""
    exchange, course, homes = hub
    inbound = exchange / COURSE_ID / "inbound"
    mine = homes[MAL] / "mine.ipynb"
    mine.write_text("{}")
    give(MAL, mine)
    anns = next(inbound.glob(f"{ANN}+*/submission_secret.txt")).read_text()
    for name, make in ATTACKS.items():
        preamble = PLANT.format(folder=str(inbound / name), solved=str(course / SOLVED), mine=str(mine), anns=anns)
        run_as(MAL, "python", "-c", preamble + make, cwd=homes[MAL])
    before = digest(course)
    with swapping(inbound / next(name for name in ATTACKS if name.endswith("+swapped")) / "01_worked_example.ipynb"):
        result = run_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, "--update", cwd=course)
    return result.stdout + result.stderr, before, digest(course)


@contextlib.contextmanager
def swapping(file: Path):
    """mal swapping `file` for a link and back again, as fast as it can, while the block runs."""
    swapper = subprocess.Popen(command_as(MAL, "python", "-c", SWAPPER, file), cwd=file.parent,
                               start_new_session=True)
    try:
        yield
    finally:
        os.killpg(swapper.pid, signal.SIGKILL)  # runuser and the swapper it started
        swapper.wait()


def refusals(course: Path) -> dict[str, str]:
    return {r["hand_in"]: r["why"] for r in json.loads((course / "refused" / f"{ASSIGNMENT}.json").read_text())}


def test_the_honest_students_are_collected_with_their_own_work(hub, attacked):
    _, course, homes = hub
    for student in (ANN, BOB):
        submitted = course / "submitted" / student / ASSIGNMENT
        for notebook in (homes[student] / ASSIGNMENT).glob("*.ipynb"):
            assert (submitted / notebook.name).read_bytes() == notebook.read_bytes(), (student, notebook.name)


def test_every_attack_is_refused_with_its_reason_and_the_attacker_gets_nothing(hub, attacked):
    log, _, _ = attacked
    _, course, _ = hub
    refused = refusals(course)
    reasons = {"links": "symbolic link", "linked-folder": "symbolic link", "forged": f"belongs to {MAL}",
               "fifo": "named pipe", "sparse": "over the limit", "hard-link": "hard link",
               "control": "control characters", "off-roster": "not on the course's roster",
               "unreadable": f"cannot be read by {INSTRUCTOR}", "timestamp-folder": "timestamp.txt is a folder",
               "no-secret": "holds no submission_secret.txt", "empty-secret": "submission_secret.txt is empty",
               "copied-secret": f"its submission secret is {ANN}'s",
               "swapped": ("symbolic link", "changed while it was read", "vanished while it was read",
                           "holds no submission_secret.txt")}
    for name in ATTACKS:
        shown = next(hand_in for hand_in in refused if hand_in.endswith(name.rsplit("+", 1)[1]))
        expected = reasons[name.rsplit("+", 1)[1]]
        assert any(why in refused[shown] for why in ([expected] if isinstance(expected, str) else expected)), \
            (name, refused[shown])
    assert not (course / "submitted" / MAL).exists() and not (course / "submitted" / "zed").exists()
    assert f"refused {len(ATTACKS)}" in log
    collected = [line.split(": ", 1)[1].split()[0] for line in log.splitlines()
                 if line.startswith("[CollectApp | INFO] Collecting submission:")]
    assert collected == [ANN, BOB]  # once each: no line a file name forged


def test_the_instructors_files_stay_byte_identical(attacked):
    _, before, after = attacked
    assert before == after


def test_a_forged_later_hand_in_never_replaces_a_genuine_earlier_one(hub, attacked):
    exchange, course, homes = hub
    kept = {p.name: p.read_bytes() for p in (course / "submitted" / ANN / ASSIGNMENT).glob("*.ipynb")}
    name = f"{ANN}+{ASSIGNMENT}+{later(5)}+forged-again"
    folder = exchange / COURSE_ID / "inbound" / name
    run_as(MAL, "python", "-c", f"import os\nos.mkdir({str(folder)!r})\n"
           f"open({str(folder / '01_worked_example.ipynb')!r}, 'w').write('{{}}')", cwd=homes[MAL])
    run_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, "--update", cwd=course)
    assert {p.name: p.read_bytes() for p in (course / "submitted" / ANN / ASSIGNMENT).glob("*.ipynb")} == kept
    assert f"belongs to {MAL}" in refusals(course)[name]


def test_bobs_many_folders_are_collected_within_the_instructors_descriptors(hub, attacked):
    _, course, homes = hub
    assert len(list((course / "submitted" / BOB / ASSIGNMENT / "scratch").iterdir())) == 1500


def test_work_rewritten_while_it_is_collected_is_refused_then_collected_at_its_last_change(hub, attacked):
    """cy hands in, then saves over her notebook in place (same inode) while the instructor's collect is
    copying it (held in its open of that notebook): that collect refuses it (the copy would not be the work
    of one moment, and its time would be the time before her change); the next collect takes it, stamped
    with the time of her change."""
    exchange, course, homes = hub
    run_as(CY, *NBGRADER, "submit", ASSIGNMENT, cwd=homes[CY])
    (handed_in,) = (exchange / COURSE_ID / "inbound").glob(f"{CY}+*")
    notebook = handed_in / "01_worked_example.ipynb"
    with OpenGate(notebook) as gate:
        collect = subprocess.Popen(command_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, f"--student={CY}"),
                                   cwd=course, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        gate.hold_first_open(timeout=600)
        run_as(CY, "python", "-c", REWRITE, notebook, cwd=homes[CY])
        gate.release()
        first = collect.communicate(timeout=600)[0]
    assert "changed while it was read" in refusals(course)[handed_in.name], first[-3000:]
    assert not (course / "submitted" / CY).exists()
    second = run_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, f"--student={CY}", cwd=course)
    last_change = datetime.datetime.fromtimestamp(notebook.stat().st_ctime, datetime.timezone.utc)
    stamped = (course / "submitted" / CY / ASSIGNMENT / "timestamp.txt").read_text()
    assert stamped == last_change.strftime("%Y-%m-%d %H:%M:%S.%f UTC") > handed_in.name.split("+")[2]
    assert f"but was last changed at {last_change.strftime('%Y-%m-%d %H:%M:%S')}" in second.stderr


@pytest.fixture(scope="module")
def graded(hub, attacked):
    """The collected class autograded (confined, as the instructor's ordinary account), its feedback
    generated and released."""
    exchange, course, homes = hub
    for command in ("autograde", "generate_feedback", "release_feedback"):
        run_as(INSTRUCTOR, *NBGRADER, command, ASSIGNMENT, cwd=course)
    return hub


def test_the_class_report_lists_the_refused_hand_ins(graded):
    _, course, _ = graded
    run_as(INSTRUCTOR, "python", "-m", "kit.report", ASSIGNMENT, cwd=course)
    run_as(INSTRUCTOR, "python", "-m", "kit.report", ASSIGNMENT, "--anonymous", cwd=course)
    page = (course / "reports" / ASSIGNMENT / "index.html").read_text()
    assert "Hand-ins refused at collect" in page and page.count(f"<td>{MAL}</td>") == len(ATTACKS) - 2
    assert "is a named pipe" in page and "not on the course&#39;s roster" in page
    anonymous = (course / "reports" / ASSIGNMENT / "anonymous.html").read_text()
    assert f"{len(refusals(course))} hand-ins were refused" in anonymous and MAL not in anonymous


def test_feedback_reaches_only_its_owner(graded):
    """ann's page is readable by ann alone: bob, given its name (as if he held ann's submission and
    its secret), is refused by the file system."""
    exchange, course, homes = graded
    nbgrader = NBGRADER
    pages = sorted((exchange / COURSE_ID / "feedback").glob("*.html"))
    assert pages
    owners = {acl.readers(page).pop() for page in pages}
    honest = {homes[student].stat().st_uid for student in (ANN, BOB)}
    assert honest <= owners <= honest | {homes[CY].stat().st_uid}  # cy's once her test collected her
    run_as(ANN, *nbgrader, "fetch_feedback", ASSIGNMENT, cwd=homes[ANN])
    fetched = list((homes[ANN] / ASSIGNMENT / "feedback").rglob("*.html"))
    assert len(fetched) == len(list((homes[ANN] / ASSIGNMENT).glob("*.ipynb")))
    anns = [page for page in pages if acl.readers(page) == {homes[ANN].stat().st_uid}]
    attempt = run_as(BOB, "python", "-c", f"open({str(anns[0])!r}).read()", cwd=homes[BOB], check=False)
    assert attempt.returncode and "Permission denied" in attempt.stderr
