"""The Python every account's server runs on a hub: what the release needs, and nothing of the course.

`make_students_environment(prefix)` (`python -m kit.hub students --prefix /opt/attention-students`, as
root) makes a virtual environment at `prefix` from the system's Python, installs
requirements/students.txt into it with pip (numpy, matplotlib, nbgrader, JupyterLab and JupyterHub's
single-user server), makes it readable by every account, and then checks it, run as from nowhere in
particular (the folder /, an empty environment): every package the release needs imports, and no module
of the course does (the answer key solutions/, the graders autograder/, the kit). The course's own
environment (.venv, inside the instructor's mode-700 course) is never the students': it names the
course folder on its path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kit.course import ROOT

REQUIREMENTS = ROOT / "requirements" / "students.txt"
NEEDED = ("numpy", "matplotlib", "nbgrader", "jupyterlab", "jupyterhub")  # as imported; requirements/students.txt
SYSTEM_PYTHON = "/usr/bin/python3"

CHECK = """\
import importlib.util, json, sys
print(json.dumps({name: importlib.util.find_spec(name) is not None for name in sys.argv[1:]}))
"""


class StudentsEnvironmentRefused(RuntimeError):
    """The environment could not be made, or holds what students must not have; the message says which."""


def course_modules(root: Path = ROOT) -> list[str]:
    """The course's own top-level modules and packages (the answer key, the graders, the kit)."""
    return sorted(p.stem for p in root.iterdir()
                  if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.is_file()))


def importable(python: Path, names: list[str]) -> dict[str, bool]:
    """Which of `names` `python` imports when run from / with an empty environment, as a student's server
    would find them on its own."""
    found = subprocess.run([str(python), "-c", CHECK, *names], cwd="/", env={"PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, check=True)
    return json.loads(found.stdout)


def make_students_environment(prefix: Path, python: str = SYSTEM_PYTHON, pip_args: tuple[str, ...] = ()) -> Path:
    """Make (or update) the students' environment at `prefix`; returns its python. Raises
    StudentsEnvironmentRefused when a needed package is missing or a course module is there."""
    prefix = Path(os.path.abspath(prefix))
    steps = [[python, "-m", "venv", str(prefix)],
             [str(prefix / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS), *pip_args]]
    for step in steps:
        made = subprocess.run(step, capture_output=True, text=True)
        if made.returncode:
            raise StudentsEnvironmentRefused(f"{' '.join(step)} failed:\n{made.stderr[-3000:]}")
    subprocess.run(["chmod", "-R", "a+rX", str(prefix)], check=True)  # root's umask may be 077
    found = importable(prefix / "bin" / "python", [*NEEDED, *course_modules()])
    missing = [name for name in NEEDED if not found[name]]
    leaked = [name for name in course_modules() if found[name]]
    if missing or leaked:
        raise StudentsEnvironmentRefused(f"{prefix}: " + "; ".join(filter(None, [
            missing and f"missing {', '.join(missing)}",
            leaked and f"it imports the course's own {', '.join(leaked)}: remove it, or what puts the course "
                       f"folder on its path (a .pth file, PYTHONPATH), and run this again"])))
    return prefix / "bin" / "python"


def main(prefix: Path, python: str, pip_args: tuple[str, ...]) -> None:
    print(f"Making the students' environment at {prefix} from {python} ({REQUIREMENTS.name}) ...", flush=True)
    made = make_students_environment(prefix, python, pip_args)
    print(f"  {made}: imports {', '.join(NEEDED)}; imports none of the course's "
          f"{', '.join(course_modules())}")
    print("Give it to every account's server in jupyterhub_config.py:")
    print(f'  c.Spawner.cmd = ["{prefix}/bin/jupyterhub-singleuser"]')
    sys.stdout.flush()
