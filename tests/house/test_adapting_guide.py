"""Does docs/adapting.md's "Add an exercise" work when followed to the letter?

In a scratch copy of the course, the guide's own code blocks are applied
where their first line says (a reference function, the registry's cases and
entry, the notebook's cells), the release is regenerated with the guide's
command, and two students who handed in notebook 01 are graded through
`nbgrader autograde`: one right, one whose answer is the guide's corpus
submission of the new exercise's known mistake, whose report must name it. If the guide and the code drift apart,
this fails.
"""

from __future__ import annotations

import filecmp
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grade import REPORT_FILE
from tests.shared.course_copy import autograde, copy_course, run_nbgrader
from tests.shared.guide import GUIDE, blocks
from kit.notebooks import ROOT

NOTEBOOK = "01_worked_example.ipynb"
RELEASE_WRITES = ("source/", "assignments/", "examples/class/", "gradebook.db", ".run/")  # `kit.release`'s outputs
WHERE = re.compile(r"# (?P<path>\S+): (?P<where>add at the end|add above EXERCISES|add at the end of EXERCISES|add as a new file)$")


def apply(course: Path, block: str) -> None:
    """Put `block` where its first line says: `# <path>: <where>` (one of WHERE's)."""
    first, body = block.split("\n", 1)
    where = WHERE.fullmatch(first)
    assert where, f"a code block of the guide does not say where it goes: {first!r}"
    path = course / where["path"]
    text = "" if where["where"] == "add as a new file" else path.read_text()
    if where["where"] == "add as a new file":
        text = body
    elif where["where"] == "add at the end":
        text = text.rstrip("\n") + "\n\n\n" + body
    elif where["where"] == "add above EXERCISES":
        head, tail = text.split("\nEXERCISES = (", 1)
        text = head.rstrip("\n") + "\n\n\n" + body + "\n\nEXERCISES = (" + tail
    else:
        head, closing = text.rstrip("\n").rsplit("\n)", 1)
        assert closing == "", f"{path.name} does not end with its EXERCISES tuple"
        text = head + "\n" + body + ")\n"
    path.write_text(text)


def guide_commands() -> list[list[str]]:
    """The guide's shell commands, as argument lists."""
    return [shlex.split(line) for language, block in blocks("Add an exercise") if language == "bash"
            for line in block.splitlines()]


@pytest.fixture(scope="module")
def followed(tmp_path_factory) -> tuple[Path, set[str]]:
    """A copy of the course after following "Add an exercise" and regenerating the release as it says,
    and the files that then differ from the course as committed (relative paths)."""
    pristine = copy_course(tmp_path_factory.mktemp("pristine") / "course")
    course = copy_course(tmp_path_factory.mktemp("adapted") / "course")
    for language, block in blocks("Add an exercise"):
        if language == "python":
            apply(course, block)
    release = next(c for c in guide_commands() if c[1:] == ["-m", "kit.release"])
    finished = subprocess.run([sys.executable, *release[1:]], cwd=course, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr[-3000:]
    return course, _differing(course, pristine)


def _differing(course: Path, pristine: Path) -> set[str]:
    """Files of `course` that `pristine` lacks or holds with other bytes (relative paths; no bytecode)."""
    found = set()
    for path in course.rglob("*"):
        twin = pristine / path.relative_to(course)
        if path.is_file() and "__pycache__" not in path.parts and not (
                twin.is_file() and filecmp.cmp(path, twin, shallow=False)):
            found.add(str(path.relative_to(course)))
    return found


@pytest.fixture(scope="module")
def adapted(followed) -> Path:
    return followed[0]


@pytest.fixture(scope="module")
def graded(adapted) -> dict[str, dict]:
    """student → grading report, after grading a right and a wrong student on the adapted course."""
    course, steps = adapted, blocks("Add an exercise")
    source = json.loads((course / "source" / "attention" / NOTEBOOK).read_text())
    name, mistake = new_exercise()
    made = [course / WHERE.fullmatch(b.split("\n", 1)[0])["path"] for language, b in steps
            if "add as a new file" in b.split("\n", 1)[0]]
    assert len(made) == 1 and made[0].name.startswith(f"{name}__"), "one corpus submission per known mistake"
    assert f'"""Mistake: {mistake}."""' in made[0].read_text()
    wrong = json.loads(json.dumps(source))
    for cell in wrong["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == name:
            cell["source"] = made[0].read_text()  # the corpus submission's code, as the student's answer
    for student, notebook in (("right", source), ("wrong", wrong)):
        folder = course / "submitted" / student / "attention"
        folder.mkdir(parents=True)
        (folder / NOTEBOOK).write_text(json.dumps(notebook))
        run_nbgrader(course, "db", "student", "add", student)
    finished = autograde(course)
    assert finished.returncode == 0, finished.stderr[-3000:]
    return {student: json.loads((course / "autograded" / student / "attention" / REPORT_FILE).read_text())
            for student in ("right", "wrong")}


def new_exercise() -> tuple[str, str]:
    """(name, known mistake) of the exercise the guide adds, read from its registry entry."""
    entry = next(b for _, b in blocks("Add an exercise") if "add at the end of EXERCISES" in b.split("\n")[0])
    return re.search(r'Exercise\("(\w+)"', entry)[1], re.search(r'Mistake\("([^"]+)"', entry)[1]


def test_adding_an_exercise_changes_the_three_files_the_guide_names_its_fixtures_and_what_the_release_writes(
        followed):
    _, touched = followed
    sentence = GUIDE.read_text().split("Adding an exercise touches exactly three files", 1)[1].split("\n\n", 1)[0]
    named = [re.compile(re.escape(path).replace("<notebook>", r"\w+").replace("NN", r"\d\d"))
             for path in re.findall(r"`([^`]+\.py)`", sentence)]
    fixtures = {path for path in touched if path.startswith("tests/shared/corpus/mistakes/")}
    by_hand = touched - fixtures - {path for path in touched if path.startswith(RELEASE_WRITES)}
    assert len(named) == 3 and len(by_hand) == 3, (sentence, sorted(by_hand))
    assert all(any(name.fullmatch(path) for name in named) for path in by_hand), sorted(by_hand)
    assert fixtures, "one corpus submission per known mistake"


def test_the_guide_places_every_block_it_shows():
    for language, block in blocks("Add an exercise"):
        assert language == "bash" or WHERE.fullmatch(block.split("\n", 1)[0]), block[:80]


def test_a_right_answer_to_the_new_exercise_earns_its_points(graded):
    name, _ = new_exercise()
    cells = graded["right"]["cells"]
    for grade_id in (f"check_{name}", f"hidden_{name}"):
        assert cells[grade_id]["earned"] == cells[grade_id]["possible"] > 0, cells[grade_id]["message"]


def test_the_new_exercises_known_mistake_is_named_in_the_wrong_answers_report(graded):
    name, mistake = new_exercise()
    cells = graded["wrong"]["cells"]
    assert cells[f"check_{name}"]["earned"] == 0
    assert cells[f"check_{name}"]["mistake"] == mistake
    assert f"Likely mistake: {mistake}." in cells[f"check_{name}"]["message"]
    assert cells[f"hidden_{name}"]["earned"] == 0
    assert cells["check_token_movement"]["earned"] == cells["check_token_movement"]["possible"]


def test_the_new_exercises_text_and_cases_pass_the_case_coverage_checks_the_guide_runs(adapted):
    name, _ = new_exercise()
    tests = next(c for c in guide_commands() if c[1:3] == ["-m", "pytest"])
    assert "tests/judge/test_case_coverage.py" in tests
    finished = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/judge/test_case_coverage.py", "-k", name], cwd=adapted, capture_output=True, text=True)
    assert finished.returncode == 0 and " passed" in finished.stdout, finished.stdout[-3000:]
