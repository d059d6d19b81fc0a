"""Can a student's environment do the assignment, and nothing of the course? Does the kit's wheel hold no answer?

kit/hub/students_env.py (`python -m kit.hub students`) makes the environment every account's server runs on a
hub; a real student account then imports what the release needs, and cannot import the answer key, the
graders or the kit. The environment is made by the command once per version of it (tests/hand_in/students_python.py:
pip downloads its packages the first time, a few minutes). Root only, as every test acting as other accounts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from kit.hub import students_env
from kit.hub.students_env import NEEDED, REQUIREMENTS, course_modules, importable
from kit.notebooks import ROOT
from tests.shared.accounts import give, make_account, run_as
from tests.shared.course_copy import copy_course
from tests.hand_in.students_python import LEAK
from tests.hand_in.students_python import students_python as made_by_the_command

STUDENT = "students-env-ann"


def test_the_kits_wheel_holds_no_answer_and_asks_for_what_students_need(tmp_path):
    course = copy_course(tmp_path / "course")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", tmp_path / "wheel", course], check=True, capture_output=True)
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert [name for name in names if not name.split("/")[0].endswith(".dist-info")] == []
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    asked = {str(Requirement(line.split(": ", 1)[1])) for line in metadata.splitlines()
             if line.startswith("Requires-Dist: ") and "extra ==" not in line}
    needs = {str(Requirement(line)) for line in REQUIREMENTS.read_text().splitlines() if line and line[0] != "#"}
    assert needs <= asked


@pytest.fixture(scope="module")
def students_python() -> Path:
    """The students' environment, made by `python -m kit.hub students` (once per version of it)."""
    if os.geteuid() != 0:
        pytest.skip("makes an environment in /var/cache and acts as a student account: run as root (CI does)")
    return made_by_the_command()


def test_a_student_imports_what_the_release_needs_and_nothing_of_the_course(students_python, tmp_path):
    home = make_account(STUDENT)
    release = home / "attention"
    shutil.copytree(ROOT / "assignments" / "attention", release)
    give(STUDENT, release)
    modules = course_modules()
    assert {"solutions", "autograder", "kit"} <= set(modules)
    probe = ("import importlib.util, json, sys\n"
             "print(json.dumps({n: s.origin for n in sys.argv[1:] if (s := importlib.util.find_spec(n))}))")
    for where in (home, release):
        found = json.loads(run_as(STUDENT, students_python, "-c", probe, *NEEDED, *modules, "judge", "figures",
                                  cwd=where).stdout)
        assert set(NEEDED) <= set(found) and not {"solutions", "autograder", "kit"} & set(found), (where, found)
        # anything else of those names is the release's own (its explorer.py, judge/, figures/), never the course's
        assert all(Path(origin).is_relative_to(students_python.parent.parent) or Path(origin).is_relative_to(release)
                   for origin in found.values()), found
    assert {"judge", "figures"} <= set(found)
    # the release's own checks and figures load on the students' environment alone
    run_as(STUDENT, students_python, "-c", "import judge, figures, numpy, matplotlib", cwd=release)


def test_an_environment_that_reaches_the_course_is_refused(students_python):
    """The command run again on the environment once something names the course folder on its path."""
    planted = next((students_python.parent.parent / "lib").glob("python*/site-packages")) / LEAK
    planted.write_text(f"{ROOT}\n")
    try:
        assert importable(students_python, ["solutions", "autograder"]) == {"solutions": True, "autograder": True}
        with pytest.raises(students_env.StudentsEnvironmentRefused, match="imports the course's own autograder"):
            students_env.make_students_environment(students_python.parent.parent)
    finally:
        planted.unlink()
