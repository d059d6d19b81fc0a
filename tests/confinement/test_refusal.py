"""Does `nbgrader autograde` refuse to grade blind? (issue 11, part 2; in this order, on one course)

KIT_CONFINEMENT=none makes the kit's probe find no confinement, as on a
machine with user namespaces switched off and no root: a real `nbgrader
autograde` must stop before any student's code runs, with the message that
names the cause and the fixes; with `[grading] unconfined = true` in
course.toml it grades, and the report and the student's feedback say the
grading was unconfined. `nbgrader validate`, which runs a notebook
unconfined in a kernel, refuses a student's hand-in, from the command line
and in the Jupyter server alike.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import sandbox
from autograder.grade import REPORT_FILE
from autograder.sandbox import REFUSAL, UNCONFINED, refusal
from kit import nbgrader_cli
from kit.notebooks import ROOT

ONE_NOTEBOOK = "01_worked_example.ipynb"  # a submission of one notebook: its grading is short


def nbgrader(course: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return nbgrader_cli.run(*args, "--log-level=ERROR", cwd=course, env={"HOME": str(course), **env},
                            capture_output=True, text=True)


@pytest.fixture(scope="module")
def course(tmp_path_factory, copy_released) -> Path:
    """A course with the assignment released and one student who submitted one notebook."""
    folder = copy_released(tmp_path_factory.mktemp("course"))
    submitted = folder / "submitted" / "ada" / "attention"
    submitted.mkdir(parents=True)
    shutil.copy(ROOT / "source" / "attention" / ONE_NOTEBOOK, submitted)
    assert nbgrader(folder, "db", "student", "add", "ada").returncode == 0
    return folder


def test_without_confinement_autograde_stops_before_any_students_code_and_says_why(course):
    finished = nbgrader(course, "autograde", "attention", KIT_CONFINEMENT="none")
    assert finished.returncode != 0
    message = finished.stderr[finished.stderr.index(REFUSAL):].rstrip()
    assert message == refusal("KIT_CONFINEMENT=none is set in the environment (it forces this refusal)")
    for fix in ("apt-get install bubblewrap", "kernel.unprivileged_userns_clone", "user.max_user_namespaces",
                "kernel.apparmor_restrict_unprivileged_userns", "grade as root", "unconfined = true"):
        assert fix in message
    assert not (course / "autograded").exists()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.assignment_submissions("attention") == []


def test_a_misspelt_confinement_setting_stops_autograde_and_names_the_setting(course, monkeypatch):
    """KIT_CONFINEMENT=bubblewarp was ignored (the probe chose as if it were unset), where a misspelt KIT_GRADING
    stops; it now stops autograde before any student's code runs, naming the setting and its values, and a
    course that grades unconfined where there is no confinement is refused all the same."""
    finished = nbgrader(course, "autograde", "attention", KIT_CONFINEMENT="bubblewarp")
    assert finished.returncode != 0
    assert "KIT_CONFINEMENT='bubblewarp' names no confinement: 'bubblewrap', 'namespaces' or 'none'" in \
        finished.stderr, finished.stderr[-3000:]
    assert not (course / "autograded").exists()
    monkeypatch.setenv("KIT_CONFINEMENT", "Bubblewrap")
    with pytest.raises(sandbox.NoConfinement, match="KIT_CONFINEMENT='Bubblewrap'"):
        sandbox.confinement(sandbox.IF_AVAILABLE)


def test_a_course_that_opts_out_is_graded_unconfined_and_the_feedback_says_so(course):
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace("unconfined = false", "unconfined = true"))
    finished = nbgrader(course, "autograde", "attention", KIT_CONFINEMENT="none")
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert "GRADING UNCONFINED" in finished.stderr
    autograded = course / "autograded" / "ada" / "attention"
    assert json.loads((autograded / REPORT_FILE).read_text())["confinement"] == UNCONFINED
    assert nbgrader(course, "generate_feedback", "attention").returncode == 0
    feedback = (course / "feedback" / "ada" / "attention" / ONE_NOTEBOOK.replace(".ipynb", ".html")).read_text()
    assert "<strong>Graded unconfined.</strong>" in feedback  # the kit's note, as markdown, first ...
    assert feedback.index("Graded unconfined.") < feedback.index('class="cell') + 200 and "Text you wrote" not in \
        feedback[:feedback.index("Graded unconfined.")]  # ... never shown as text the student wrote
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission("attention", "ada").score > 0


# ---------------------------------------------------------------- nbgrader validate, which runs a notebook unconfined

# What the Jupyter server's Validate handler does (nbgrader/server_extensions/validate_assignment): the
# configuration of the folder it runs in, then a Validator of its own.
VALIDATE_AS_THE_SERVER = """
import sys
from nbgrader.apps import NbGrader
from nbgrader.validator import Validator
app = NbGrader()
app.config_file_paths.append(['.'])
app.load_config_file()
try:
    Validator(config=app.config).validate(sys.argv[1])
except PermissionError as refused:
    print(refused)
"""


def validate(course: Path, notebook: Path) -> subprocess.CompletedProcess:
    """`nbgrader validate notebook` in the course (validate takes no --log-level)."""
    return nbgrader_cli.run("validate", str(notebook), cwd=course, env={"HOME": str(course)}, capture_output=True,
                            text=True)


@pytest.fixture
def hand_in_that_writes(tmp_path, copy_released) -> tuple[Path, Path, Path]:
    """(course, a student's hand-in whose first cell writes a file, the file it writes)."""
    folder = copy_released(tmp_path / "course")
    written = tmp_path / "written by the student's code"
    notebook = nbformat.read(ROOT / "source" / "attention" / ONE_NOTEBOOK, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(f"open({str(written)!r}, 'w').write('ran')"))
    hand_in = folder / "submitted" / "bo" / "attention" / ONE_NOTEBOOK
    hand_in.parent.mkdir(parents=True)
    nbformat.write(notebook, hand_in)
    return folder, hand_in, written


def test_nbgrader_validate_refuses_a_hand_in_and_runs_none_of_its_code(hand_in_that_writes, tmp_path):
    """`nbgrader validate` executes a notebook in a kernel with the instructor's rights: a student's hand-in, in
    the course's folders or reached through a link, is refused with the command that grades it confined."""
    course, hand_in, written = hand_in_that_writes
    link = tmp_path / "looks like mine.ipynb"
    link.symlink_to(hand_in)
    for notebook in (hand_in.relative_to(course), link):
        finished = validate(course, notebook)
        assert finished.returncode == 1, finished.stderr
        assert f"nbgrader validate refuses {notebook}: it is in {course / 'submitted'}, a student's hand-in" \
            in finished.stderr
        assert "nbgrader autograde <assignment> --student <id>" in finished.stderr
        assert "Traceback" not in finished.stderr
    assert not written.exists()


def test_the_jupyter_servers_validate_refuses_a_hand_in_too(hand_in_that_writes):
    course, hand_in, written = hand_in_that_writes
    served = subprocess.run([sys.executable, "-c", VALIDATE_AS_THE_SERVER, str(hand_in)], cwd=course,
                            capture_output=True, text=True, env={**os.environ, "HOME": str(course)})
    assert served.returncode == 0, served.stderr
    assert served.stdout.startswith(f"nbgrader validate refuses {hand_in}: it is in {course / 'submitted'}")
    assert not written.exists()


def test_nbgrader_validate_still_runs_a_notebook_outside_the_hand_ins(hand_in_that_writes, tmp_path):
    """The guard stops only hand-ins: the same notebook copied out of them is validated, its code run."""
    course, hand_in, written = hand_in_that_writes
    mine = shutil.copy(hand_in, tmp_path / ONE_NOTEBOOK)
    finished = validate(course, mine)
    assert "refuses" not in finished.stderr
    assert written.read_text() == "ran"
