"""Can a student forge a hand-in on a shared exchange? (issue 21, parts 1, 5 and 6)

The exchange is laid out as on a JupyterHub, by `kit.hub`'s set-up, and real
system accounts use it: an instructor who is not root, whose course folder is
mode 700, and three students handing in with nbgrader's own `fetch_assignment`
and `submit`. One of them, mal, plants every kind of forged hand-in the issue
names straight into the exchange's inbound folder. The instructor runs
`nbgrader collect`; for each attack, the attacker gets nothing, the victim
keeps their work, the rest of the class is collected, and the instructor's
files stay byte-identical. Then feedback is released, and only its owner can
read it. Root only: it makes the accounts.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.hand_in import acl
from kit.hub.exchange import make_exchange
from kit.notebooks import ROOT
from tests.accounts import give, make_account, run_as

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes system accounts for the instructor and students: "
                                                          "run as root (CI does)")

INSTRUCTOR, ANN, BOB, MAL = "handin-teach", "handin-ann", "handin-bob", "handin-mal"
WORK = ROOT / "examples" / "class" / "submitted"  # ann hands in ada's work, bob hands in bo's
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
# (`folder` is the hand-in's path, `solved` the instructor's solved notebooks, `mine` a file of mal's own).
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
}


@pytest.fixture(scope="module")
def hub(tmp_path_factory, copy_released):
    """The exchange, the instructor's course in their home (mode 700) with the class on its roster, and
    ann and bob's genuine hand-ins through nbgrader's own commands."""
    shared = Path(tempfile.mkdtemp(prefix="attention-kit-hand-in-", dir="/tmp"))
    shared.chmod(0o755)
    homes = {name: make_account(name) for name in (INSTRUCTOR, ANN, BOB, MAL)}
    exchange = shared / "exchange"
    make_exchange(exchange, COURSE_ID, INSTRUCTOR)
    course = copy_released(homes[INSTRUCTOR] / "course")
    toml = (course / "course.toml").read_text()
    (course / "course.toml").write_text(toml.replace('[exchange]\n', f'[exchange]\nroot = "{exchange}"\n', 1)
                                        .replace('\nroot = ""\n', "\n", 1))
    give(INSTRUCTOR, course)
    course.chmod(0o700)
    nbgrader = NBGRADER
    for student in (ANN, BOB, MAL):
        run_as(INSTRUCTOR, *nbgrader, "db", "student", "add", student, cwd=course)
    run_as(INSTRUCTOR, *nbgrader, "release_assignment", ASSIGNMENT, cwd=course)
    for student, work in ((ANN, "ada"), (BOB, "bo")):
        home = homes[student]
        (home / ".jupyter").mkdir()
        (home / ".jupyter" / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\nc.Exchange.root = {str(exchange)!r}\n")
        give(student, home / ".jupyter")
        run_as(student, *nbgrader, "fetch_assignment", ASSIGNMENT, cwd=home)
        for notebook in (WORK / work / ASSIGNMENT).glob("*.ipynb"):
            shutil.copyfile(notebook, home / ASSIGNMENT / notebook.name)
        give(student, home / ASSIGNMENT)
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
    for name, make in ATTACKS.items():
        script = (f"import os\nfolder = {str(inbound / name)!r}\nsolved = {str(course / SOLVED)!r}\n"
                  f"mine = {str(mine)!r}\n{make}\n")
        run_as(MAL, "python", "-c", script, cwd=homes[MAL])
    before = digest(course)
    result = run_as(INSTRUCTOR, *NBGRADER, "collect", ASSIGNMENT, "--update", cwd=course)
    return result.stdout + result.stderr, before, digest(course)


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
               "control": "control characters", "off-roster": "not on the course's roster"}
    for name in ATTACKS:
        shown = next(hand_in for hand_in in refused if hand_in.endswith(name.rsplit("+", 1)[1]))
        assert reasons[name.rsplit("+", 1)[1]] in refused[shown], (name, refused[shown])
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
    assert owners == {homes[ANN].stat().st_uid, homes[BOB].stat().st_uid}
    run_as(ANN, *nbgrader, "fetch_feedback", ASSIGNMENT, cwd=homes[ANN])
    fetched = list((homes[ANN] / ASSIGNMENT / "feedback").rglob("*.html"))
    assert len(fetched) == len(list((homes[ANN] / ASSIGNMENT).glob("*.ipynb")))
    anns = [page for page in pages if acl.readers(page) == {homes[ANN].stat().st_uid}]
    attempt = run_as(BOB, "python", "-c", f"open({str(anns[0])!r}).read()", cwd=homes[BOB], check=False)
    assert attempt.returncode and "Permission denied" in attempt.stderr
