"""Does the course work on a real JupyterHub, as README's "JupyterHub and nbgrader's shared exchange"
sets it up, and does feedback reach only its owner?

As root, the test makes an instructor who is not root and two students (system accounts, PAM
passwords), runs `python -m kit.hub setup` into a temporary folder, with the grading service as the hub's
managed service (`--hub-config`; course.toml `[service] on`, one graded feedback an hour), and starts
JupyterHub on 127.0.0.1 (tests/hand_in/hub.py): PAM login, each server run as its own account, the students' on the
students' environment `python -m kit.hub students` makes (nothing of the course in it), the grading service
as the instructor. Then, in Chromium (Playwright), student ann logs in, fetches the assignment from the
Assignment List, solves notebook 06's exercise, saves, validates and submits, and, with nobody else doing
anything, Fetch Feedback shows her score and her check's message. The service is killed (SIGKILL) and the
hub starts it again; meanwhile student bo submits untouched work, and it is graded. Ann hands in again: over
the limit, her feedback says when the next graded one comes, and bo cannot read it. The service's log names
each hand-in's outcome. The instructor, in their own server, collects through the formgrader's API,
autogrades (the kit's confined grading, as an ordinary account), generates and releases feedback in a
terminal: the grades the service gave. Ann reads her score; bo cannot read ann's feedback, even holding
her submission. It saves docs/hub-assignment-list.png, ann's Assignment List, and docs/hub-over-the-limit.png, her
page over the limit.

Skips where it cannot run: not root; outside CI, without Chromium, Playwright, JupyterHub or
configurable-http-proxy (`make test` installs them). In CI a missing piece fails it instead.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, db_url
from kit.grading_service.service import service_folder
from kit.hand_in.acl import readers
from kit.hub.managed_service import service_name
from kit.notebooks import ROOT
from tests.hand_in import hub as jupyterhub
from tests.shared.accounts import run_as
from tests.shared.browser import DOCS, LAB_SETTINGS, chromium, require_browser
from tests.hand_in.grading_service import with_service_policy
from tests.shared.shared_python import environment
from tests.hand_in.students_python import students_python

ANN, BO = jupyterhub.STUDENTS
INSTRUCTOR = jupyterhub.INSTRUCTOR
NOTEBOOK = "06_blockwise"  # one exercise: ann solves it whole
EXERCISE = "blockwise_attention"
GAP_MINUTES = 60  # course.toml [service] min_gap_minutes: ann's second hand-in is over the limit
SOLUTION_MARKERS = re.compile(r"^\s*### (BEGIN|END) SOLUTION\n", re.MULTILINE)


def _require_hub() -> None:
    if os.geteuid() != 0:
        pytest.skip("the hub test needs root: it makes system accounts and runs a server as each")
    reason = jupyterhub.why_unavailable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: in CI it must run, not skip", pytrace=False)
        pytest.skip(f"{reason}; `make test` installs it")
    require_browser()


class Course:
    """Everything the hub test made: the exchange, the instructor's course, the accounts' passwords."""

    def __init__(self, folder: Path, passwords: dict[str, str], python: Path, students_python: Path):
        self.folder, self.passwords, self.python, self.students_python = folder, passwords, python, students_python
        self.exchange, self.etc_jupyter = folder / "exchange", folder / "etc-jupyter"
        self.hub_config = folder / "grading_service_config.py"  # `kit.hub setup --hub-config` writes it
        self.course = Path(f"~{INSTRUCTOR}").expanduser() / "course"
        self.setup_output = ""

    def nbgrader(self, *args: str, python: Path | None = None) -> list[str]:
        """nbgrader's command line, run by `python` (the environment every account can run)."""
        return nbgrader_cli.command(*args, python=python or self.python)

    def as_instructor(self, *args: str) -> subprocess.CompletedProcess:
        return jupyterhub.as_account(INSTRUCTOR, self.python, *self.nbgrader(*args), cwd=self.course,
                                     PYTHONPATH=str(self.course))


@pytest.fixture(scope="module")
def course(released_course):
    _require_hub()
    folder = Path(tempfile.mkdtemp(prefix="attention-hub-", dir="/tmp"))
    folder.chmod(0o755)  # the exchange inside is for every account
    try:
        made = Course(folder, jupyterhub.accounts(), environment(), students_python())
        # The instructor's own copy of the course, mode 700, its exchange the hub's, graded on hand-in.
        shutil.copytree(released_course, made.course, symlinks=True)
        toml = made.course / "course.toml"
        uncommented = re.sub(r"\n(#[^\n]*\n)+", "\n", toml.read_text())
        assert '\n[exchange]\nroot = ""\n' in uncommented, "course.toml has no [exchange] root"
        toml.write_text(with_service_policy(toml.read_text(), made.exchange, on=True, per_day=0,
                                            min_gap_minutes=GAP_MINUTES, stop_at_deadline=False))
        subprocess.run(["chown", "-R", f"{INSTRUCTOR}:{INSTRUCTOR}", made.course], check=True)
        made.course.chmod(0o700)
        setup = subprocess.run([sys.executable, "-m", "kit.hub", "setup", f"--instructor={INSTRUCTOR}",
                                f"--exchange={made.exchange}", f"--config-dir={made.etc_jupyter}",
                                f"--hub-config={made.hub_config}", f"--course={made.course}",
                                f"--python={made.python}"],
                               cwd=ROOT, capture_output=True, text=True, timeout=jupyterhub.WAIT)
        assert setup.returncode == 0, setup.stderr
        made.setup_output = setup.stdout
        for student in jupyterhub.STUDENTS:  # a quiet page: no news pop-up over the Assignment List
            _write_lab_settings(Path(f"~{student}").expanduser(), student)
        for student in jupyterhub.STUDENTS:
            added = made.as_instructor("db", "student", "add", student)
            assert added.returncode == 0, added.stderr[-3000:]
        released = made.as_instructor("release_assignment", ASSIGNMENT)
        assert released.returncode == 0, released.stderr[-3000:]
        yield made
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_lab_settings(home: Path, account: str) -> None:
    settings = home / ".jupyter" / "lab" / "user-settings"
    for name, values in LAB_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    subprocess.run(["chown", "-R", f"{account}:{account}", home / ".jupyter"], check=True)


@pytest.fixture(scope="module")
def hub(course):
    with jupyterhub.running_hub(course.folder, course.python, course.students_python, course.course,
                                course.etc_jupyter, course.hub_config) as running:
        yield running


@pytest.fixture(scope="module")
def browser(hub):
    with chromium() as browser:
        yield browser


def _log_in(browser, hub, course: Course, user: str):
    """A page of `user`'s JupyterLab, reached through the hub's login page."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(jupyterhub.WAIT * 1000)
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", course.passwords[user])
    page.click("#login_submit")
    page.wait_for_url(re.compile(rf"/user/{user}/lab"))
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.evaluate("() => window.jupyterapp.restored")
    return page


def _nbgrader_menu(page) -> list[str]:
    """The items of JupyterLab's Nbgrader menu, as it shows them."""
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    menu = page.locator(".lm-Menu").filter(has=page.get_by_role("menuitem", name="Assignment List", exact=True))
    menu.wait_for()
    items = [text.strip() for text in menu.locator(".lm-Menu-itemLabel").all_inner_texts() if text.strip()]
    page.keyboard.press("Escape")
    return items


def _open_assignment_list(page):
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    page.get_by_role("menuitem", name="Assignment List", exact=True).click()
    return page.locator("#nbgrader-assignment-list, .nbgrader-AssignmentList, .jp-AssignmentList").first


def _points(notebook: str) -> float:
    cells = json.loads((ROOT / "source" / ASSIGNMENT / f"{notebook}.ipynb").read_text())["cells"]
    graded = [c["metadata"]["nbgrader"] for c in cells if c["metadata"].get("nbgrader", {}).get("grade")]
    return sum(cell.get("points", 0) for cell in graded)


def _solution(notebook: str, grade_id: str) -> str:
    """The source notebook's answer cell `grade_id`, as a student would write it (markers removed)."""
    cells = json.loads((ROOT / "source" / ASSIGNMENT / f"{notebook}.ipynb").read_text())["cells"]
    cell = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    return SOLUTION_MARKERS.sub("", "".join(cell["source"]))


def test_on_a_hub_students_hand_in_from_the_browser_and_only_the_owner_reads_feedback(course, hub, browser):
    # One test, so that pytest-xdist never starts a second hub for a second half.
    _the_setup_says_what_a_student_can_and_cannot_reach(course)
    _a_students_server_has_no_formgrader_and_the_instructors_has(hub)
    ann = _log_in(browser, hub, course, ANN)
    assert _nbgrader_menu(ann) == ["Assignment List"]  # no Formgrader, Course List or Create assignment
    _fetch_solve_validate_and_submit(ann)
    _ann_reads_her_graded_feedback_with_nobody_doing_anything(ann, hub)
    killed = _the_grading_service_is_killed(course)
    bo = _log_in(browser, hub, course, BO)
    _fetch_and_submit_untouched(bo)
    _the_hub_starts_the_grading_service_again(hub, course, killed)
    _ann_hands_in_again_over_the_limit_and_is_told_when_the_next_graded_feedback_comes(ann, hub, course)
    graded = _the_services_log_names_each_hand_ins_outcome(course)
    _the_instructor_collects_grades_and_releases_feedback(hub, course, graded)
    _ann_reads_her_score_and_her_checks_message(ann, hub)
    _bo_cannot_read_anns_feedback(course)


def _the_setup_says_what_a_student_can_and_cannot_reach(course: Course) -> None:
    assert "A student cannot:" in course.setup_output, course.setup_output
    assert f"Grading service {service_name(COURSE_ID)}" in course.setup_output, course.setup_output
    modes = {name: oct((course.exchange / COURSE_ID / name).stat().st_mode & 0o7777)
             for name in ("inbound", "outbound", "feedback")}
    assert modes == {"inbound": "0o3733", "outbound": "0o755", "feedback": "0o711"}
    assert oct(course.exchange.stat().st_mode & 0o7777) == "0o1777"


def _a_students_server_has_no_formgrader_and_the_instructors_has(hub) -> None:
    hub.start_server(INSTRUCTOR)
    assert hub.status(f"/user/{INSTRUCTOR}/formgrader/api/assignments") == 200
    hub.start_server(ANN)
    assert hub.status(f"/user/{ANN}/formgrader/api/assignments") == 404
    assert hub.status(f"/user/{ANN}/assignments?course_id={COURSE_ID}") == 200  # the Assignment List's own API


def _fetch_solve_validate_and_submit(page) -> None:
    _fetch(page)
    _open_from_the_assignment_list(page, NOTEBOOK)
    _write_answer(page, EXERCISE, _solution(NOTEBOOK, EXERCISE))
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.get_by_role("button", name="Validate", exact=True).first.click()
    verdict = page.locator(".validation-success, .validation-failed, .validation-passed, .validation-changed").first
    verdict.wait_for()
    assert "Success" in verdict.inner_text(), page.locator(".jp-Dialog").inner_text()
    page.keyboard.press("Escape")
    _submit(page)


def _fetch_and_submit_untouched(page) -> None:
    _fetch(page)
    _submit(page)


def _fetch(page) -> None:
    """Nbgrader ▸ Assignment List, then Fetch the released assignment."""
    _open_assignment_list(page)
    page.locator("#released_assignments_list").get_by_role("button", name="Fetch", exact=True).click()
    page.locator("#fetched_assignments_list").get_by_text(ASSIGNMENT, exact=True).first.wait_for()


def _open_from_the_assignment_list(page, notebook: str) -> None:
    fetched = page.locator("#fetched_assignments_list")
    fetched.get_by_text(ASSIGNMENT, exact=True).first.click()  # unfolds its notebooks
    fetched.get_by_text(notebook, exact=True).first.click()
    page.wait_for_function("""path => {
        const widget = window.jupyterapp.shell.currentWidget;
        return widget?.context?.path === path && widget.sessionContext?.session?.kernel?.status === 'idle';
    }""", arg=f"{ASSIGNMENT}/{notebook}.ipynb")


def _write_answer(page, grade_id: str, answer: str) -> None:
    """Type `answer` over the stub of answer cell `grade_id`, in the notebook open in front."""
    index = page.evaluate("""id => {
        const notebook = window.jupyterapp.shell.currentWidget.content;
        const cells = [...notebook.model.cells];
        const i = cells.findIndex(c => (c.getMetadata('nbgrader') || {}).grade_id === id);
        notebook.activeCellIndex = i;
        notebook.scrollToItem(i);
        return i;
    }""", grade_id)
    assert index >= 0, f"no answer cell {grade_id}"
    editor = page.locator(".jp-Notebook .jp-Cell.jp-mod-active .cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    typed = page.evaluate("i => window.jupyterapp.shell.currentWidget.content.model.cells.get(i).sharedModel"
                          ".getSource()", index)
    assert typed == answer, f"the cell holds:\n{typed}"


def _student_of(page) -> str:
    return re.search(r"/user/([^/]+)/", page.url)[1]


def _submit(page) -> None:
    """Submit from the Assignment List, and wait until the hand-in is made (the student's cache holds one more)."""
    before = len(_submissions(_student_of(page)))
    _open_assignment_list(page)
    page.locator("#fetched_assignments_list").get_by_role("button", name="Submit", exact=True).click()
    page.locator("#submitted_assignments_list").get_by_text(ASSIGNMENT, exact=True).first.wait_for()
    deadline = time.monotonic() + jupyterhub.WAIT
    while len(_submissions(_student_of(page))) <= before:
        assert time.monotonic() < deadline, "the hand-in was not made"
        time.sleep(0.5)


def _the_instructor_collects_grades_and_releases_feedback(hub, course: Course, service_gave: dict[str, float]) -> None:
    # The formgrader's Collect button calls this (nbgrader/server_extensions/formgrader/apihandlers.py).
    collected = hub.api("POST", f"/user/{INSTRUCTOR}/formgrader/api/assignment/{ASSIGNMENT}/collect")
    assert collected.get("success"), collected
    for student in (ANN, BO):
        assert (course.course / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists(), collected["log"]
    # The rest in a terminal of the instructor's server, as README's loop runs it (a login shell:
    # /etc/profile sets its PATH, so the environment's python by its path).
    status, shown = hub.run_in_terminal(INSTRUCTOR, " && ".join(
        " ".join(course.nbgrader(command, ASSIGNMENT)) for command in
        ("autograde", "generate_feedback", "release_feedback")))
    assert status == 0, shown[-5000:]
    for student in (ANN, BO):  # graded on the kit's path, confined, as the instructor's account
        report = course.course / "autograded" / student / ASSIGNMENT / "grading_report.json"
        assert json.loads(report.read_text())["confinement"] != "unconfined", shown[-3000:]
        assert report.stat().st_uid == pwd.getpwnam(INSTRUCTOR).pw_uid
    with Gradebook(db_url(course.course), COURSE_ID) as gradebook:  # ann solved one notebook whole, bo none
        scores = {student: gradebook.find_submission(ASSIGNMENT, student).score for student in (ANN, BO)}
    assert scores == {ANN: _points(NOTEBOOK), BO: 0}, (scores, collected["log"][-3000:])
    assert scores == service_gave  # ann's newest hand-in holds what her first did


def _submissions(student: str) -> list[str]:
    """The times of a student's hand-ins, oldest first, as their nbgrader cache names them."""
    cache = Path(f"~{student}").expanduser() / ".local/share/jupyter/nbgrader_cache" / COURSE_ID
    return sorted(path.name.split("+")[2] for path in cache.glob(f"{student}+{ASSIGNMENT}+*"))


def _fetch_feedback(page, hub, submitted_at: str, graded: bool = True, screenshot: str | None = None) -> str:
    """Fetch Feedback in the student's Assignment List until the hand-in of `submitted_at` has its page, graded
    or (graded=False) any (the grading service may still be at work), then that page's text as the student's
    browser shows it (saved as docs/<screenshot> if named)."""
    student = _student_of(page)
    home = Path(f"~{student}").expanduser()
    feedback = home / ASSIGNMENT / "feedback" / submitted_at / f"{NOTEBOOK}.html"
    deadline = time.monotonic() + jupyterhub.WAIT
    _open_assignment_list(page)
    while True:
        page.locator("#submitted_assignments_list").get_by_role("button", name="Fetch Feedback", exact=True).click()
        page.wait_for_timeout(3000)
        if feedback.exists() and not (graded and "Next graded feedback at" in feedback.read_text()):
            break
        assert time.monotonic() < deadline, f"no feedback for {student}'s hand-in of {submitted_at}"
    page.locator("#submitted_assignments_list").get_by_text("(view feedback)").first.wait_for()
    view = page.context.new_page()
    view.goto(f"{hub.url}/user/{student}/files/{feedback.relative_to(home)}")
    text = view.locator("body").inner_text()
    if screenshot:
        view.set_viewport_size({"width": 900, "height": 420})
        view.screenshot(path=str(DOCS / screenshot))
    view.close()
    return text


def _score_and_checks_shown(text: str) -> None:
    points = _points(NOTEBOOK)
    assert re.search(rf"{NOTEBOOK}: {points}(\.0)? of {points}(\.0)? points", text), text[:3000]
    text = " ".join(text.split())
    # Each check's verdict and message; the hidden checks' code never (kit/nbgrader_glue/feedback_page.py).
    assert f"✓ passed: check_{EXERCISE}" in text and f"✓ passed: hidden_{EXERCISE}" in text, text[:3000]
    assert "hidden_check(" not in text, text[:3000]


def _ann_reads_her_graded_feedback_with_nobody_doing_anything(page, hub) -> None:
    _score_and_checks_shown(_fetch_feedback(page, hub, _submissions(ANN)[-1]))


def _service_pid(course: Course) -> int | None:
    try:
        return int((service_folder(course.course) / "lock").read_text().strip())
    except (OSError, ValueError):
        return None


def _the_grading_service_is_killed(course: Course) -> int:
    pid = _service_pid(course)
    assert pid and Path(f"/proc/{pid}").exists()
    os.kill(pid, signal.SIGKILL)
    return pid


def _the_hub_starts_the_grading_service_again(hub, course: Course, killed: int) -> None:
    deadline = time.monotonic() + jupyterhub.WAIT
    while (pid := _service_pid(course)) in (killed, None) or not Path(f"/proc/{pid}").exists():
        assert time.monotonic() < deadline, hub.log.read_text()[-3000:]
        time.sleep(1)
    assert f"Service {service_name(COURSE_ID)} exited" in hub.log.read_text()


def _ann_hands_in_again_over_the_limit_and_is_told_when_the_next_graded_feedback_comes(page, hub, course) -> None:
    _submit(page)
    [first, again] = _submissions(ANN)
    text = " ".join(_fetch_feedback(page, hub, again, graded=False, screenshot="hub-over-the-limit.png").split())
    assert "collected" in text and "Next graded feedback at" in text, text[:3000]
    assert re.search(r"Next graded feedback at \d{4}-\d\d-\d\d \d\d:\d\d UTC", text), text
    notice = next(Path(f"~{ANN}").expanduser().glob(f"{ASSIGNMENT}/feedback/{again}/{NOTEBOOK}.html")).read_bytes()
    [released] = [path for path in (course.exchange / COURSE_ID / "feedback").iterdir()
                  if path.read_bytes() == notice]
    assert readers(released) == {pwd.getpwnam(ANN).pw_uid}
    read = run_as(BO, "cat", released, cwd=Path("/"), check=False)
    assert read.returncode != 0 and "Permission denied" in read.stderr


def _the_services_log_names_each_hand_ins_outcome(course: Course) -> dict[str, float]:
    """Waits for bo's outcome; returns the score the service gave each student's first hand-in."""
    log = service_folder(course.course) / f"{ASSIGNMENT}.log"
    deadline = time.monotonic() + jupyterhub.WAIT
    while f"of {BO}: graded" not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(1)
    text = log.read_text()
    [first, again] = _submissions(ANN)
    assert re.search(rf"hand-in {ANN}\+{ASSIGNMENT}\+{re.escape(again)}\S* of {ANN}: over the limit: collected, "
                     rf"and its feedback says: next graded feedback at ", text), text
    return {student: float(re.search(rf"hand-in {student}\+{ASSIGNMENT}\+{re.escape(_submissions(student)[0])}"
                                     rf"\S* of {student}: graded, ([\d.]+) / ", text)[1]) for student in (ANN, BO)}


def _ann_reads_her_score_and_her_checks_message(page, hub) -> None:
    """After the instructor's loop, her newest hand-in's page is the graded one."""
    text = _fetch_feedback(page, hub, _submissions(ANN)[-1])
    page.set_viewport_size({"width": 1280, "height": 700})
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "hub-assignment-list.png"))
    _score_and_checks_shown(text)


def _bo_cannot_read_anns_feedback(course: Course) -> None:
    """Bo holds ann's submission as her cache keeps it (notebooks, timestamp, secret) and asks for her
    feedback, then reads the feedback file in the exchange by its name. Stock nbgrader's secret file name
    alone would let him (its feedback files are 0644); the kit's release makes each readable by its
    student's account alone (kit/hand_in/feedback.py)."""
    ann_home, bo_home = (Path(f"~{user}").expanduser() for user in (ANN, BO))
    cache = Path(".local/share/jupyter/nbgrader_cache") / COURSE_ID
    held = sorted((ann_home / cache).glob(f"{ANN}+{ASSIGNMENT}+*"))
    for submission in held:
        shutil.copytree(submission, bo_home / cache / submission.name)
    subprocess.run(["chown", "-R", f"{BO}:{BO}", bo_home / ".local"], check=True)
    # Outside the hub's mount namespace /etc/jupyter is not the test's: the course and exchange given here.
    asked = jupyterhub.as_account(BO, course.students_python, *course.nbgrader(
        "fetch_feedback", ASSIGNMENT, f"--student={ANN}", f"--course={COURSE_ID}",
        f"--Exchange.root={course.exchange}", python=course.students_python),
        cwd=bo_home)
    newest = ann_home / ASSIGNMENT / "feedback" / _submissions(ANN)[-1] / f"{NOTEBOOK}.html"
    anns = [path for path in (course.exchange / COURSE_ID / "feedback").iterdir()
            if path.read_bytes() == newest.read_bytes()]  # her two hand-ins' pages: the same work, the same page
    assert anns and all(readers(page) == {pwd.getpwnam(ANN).pw_uid} and page.stat().st_mode & 0o007 == 0
                        for page in anns)  # group bits: the mask
    read = run_as(BO, "cat", anns[0], cwd=Path("/"), check=False)
    # Stock fetch_feedback also fetches bo's own feedback here (his own cache entry): only ann's counts.
    got = [page for submitted_at in _submissions(ANN)
           for page in (bo_home / ASSIGNMENT / "feedback" / submitted_at).glob("*.html")]
    assert read.returncode != 0 and "Permission denied" in read.stderr, (read.returncode, read.stderr)
    assert not got, (got, asked.stderr[-3000:])
