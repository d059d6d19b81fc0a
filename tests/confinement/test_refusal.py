"""Does `nbgrader autograde` refuse to grade blind? (issue 11, part 2; in this order, on one course)

KIT_CONFINEMENT=none makes the kit's probe find no confinement, as on a
machine with user namespaces switched off and no root: a real `nbgrader
autograde` must stop before any student's code runs, with the message that
names the cause and the fixes; with `[grading] unconfined = true` in
course.toml it grades, and the report and the student's feedback say the
grading was unconfined.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

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
