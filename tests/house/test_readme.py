"""Every command block of README's instructor section works as written, in order."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from nbgrader.api import Gradebook

from kit import classroom, nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID
from kit.notebooks import ROOT, course_points
from tests.shared.course_copy import copy_course


def instructor_blocks(readme: str) -> list[str]:
    section = readme.split("## For instructors", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, re.DOTALL)


def submit(course: Path, student: str, env: dict) -> None:
    """What a student does from JupyterLab's Assignment List: submit their folder."""
    home = course / "students" / student
    (home / "attention").mkdir(parents=True)
    for notebook in (ROOT / "examples" / "class" / "submitted" / student / "attention").glob("*.ipynb"):
        (home / "attention" / notebook.name).write_bytes(notebook.read_bytes())
    nbgrader_cli.run("submit", ASSIGNMENT, f"--student={student}", f"--Exchange.root={course / 'exchange'}",
                     f"--CourseDirectory.course_id={COURSE_ID}", f"--CourseDirectory.root={home}", cwd=home, env=env,
                     check=True, capture_output=True)


def run_server_block(block: str, course: Path, env: dict) -> None:
    """A block that starts a server: it must come up and print its address; then it is stopped."""
    extra = " --ServerApp.port=0" + (" --allow-root" if os.geteuid() == 0 else "")  # any free port; CI runs as root
    server = subprocess.Popen(["bash", "-c", block.strip() + extra], cwd=course, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline, seen = time.time() + 120, ""
    try:
        while time.time() < deadline and "http://127.0.0.1:" not in seen:
            seen += server.stdout.readline()
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
    assert "http://127.0.0.1:" in seen, seen[-2000:]


def test_every_instructor_command_block_works_as_written(tmp_path):
    course = copy_course(tmp_path / "course")
    (course / ".venv").symlink_to(ROOT / ".venv")
    for made_from in [course / "pyproject.toml", *(course / "requirements").glob("*.txt")]:
        os.utime(made_from, (0, 0))  # the linked environment is up to date: make must not rebuild it
    # as a new user runs them: .venv/bin/... with the environment not activated (its tools not on PATH)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != Path(sys.executable).parent)
    env = {**os.environ, "PATH": path, "HOME": str(tmp_path)}
    blocks = instructor_blocks((ROOT / "README.md").read_text())
    assert len(blocks) == 10
    for block in blocks:
        if "nbgrader collect" in block:
            for student in ("ada", "bo"):
                submit(course, student, env)
        if "jupyter lab" in block:
            run_server_block(block, course, env)
            continue
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=course, env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{block}\n{result.stderr[-3000:]}"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        # ada's perfect submission earns every point, plus the one the "change points" block adds
        assert gb.find_submission("attention", "ada").score == sum(course_points().values()) + 1
        assert {s.id for s in gb.students} >= {"ada", "bo", "zoe"}
        assert gb.find_grade_cell("hidden_softmax", "03_softmax_and_mix", "attention").max_score == 4
    grades = (course / "grades.csv").read_text().splitlines()
    assert len(grades) == 1 + len(classroom.roster(course / "examples" / "class" / "roster.csv"))  # the roster
    assert {line.split(",")[3] for line in grades[1:]} >= {"ada", "bo"}
    report = (course / "reports" / "attention" / "index.html").read_text()
    assert "softmax over the wrong axis" in report and "bo" in report  # bo's known mistake, by name
    assert (course / "reports" / "attention" / "anonymous.html").exists()
