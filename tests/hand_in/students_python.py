"""The students' environment of a hub, made by `python -m kit.hub students` (kit/hub/students_env.py) once per
version of the command and of requirements/students.txt, kept in /var/cache/attention-kit beside the suite's
other shared environments (root only: pip downloads its packages the first time, a few minutes)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

from kit.hub import students_env
from kit.notebooks import ROOT
from tests.shared.shared_python import CACHE

LEAK = "course.pth"  # what tests/hand_in/test_students_environment.py plants to be refused, and removes


def students_python() -> Path:
    """The python of the students' environment, made by the command if this version has none yet."""
    key = hashlib.sha256(students_env.REQUIREMENTS.read_bytes() + Path(students_env.__file__).read_bytes())
    prefix = CACHE / f"students-{key.hexdigest()[:16]}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(prefix.with_suffix(".lock"))):
        if not (prefix / ".made").exists():
            shutil.rmtree(prefix, ignore_errors=True)
            made = subprocess.run([sys.executable, "-m", "kit.hub", "students", f"--prefix={prefix}"], cwd=ROOT,
                                  capture_output=True, text=True, timeout=1800)
            assert made.returncode == 0, made.stdout + made.stderr[-3000:]
            assert f'c.Spawner.cmd = ["{prefix}/bin/jupyterhub-singleuser"]' in made.stdout
            (prefix / ".made").touch()
        for leftover in (prefix / "lib").glob(f"python*/site-packages/{LEAK}"):  # a test run killed half-way
            leftover.unlink()
    return prefix / "bin" / "python"
