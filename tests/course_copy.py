"""A scratch copy of the kit for tests that run whole commands: the files as
git's index holds them (committed or staged), so work in progress elsewhere
in the tree cannot leak into a test."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kit.notebooks import ROOT


def copy_course(target: Path) -> Path:
    subprocess.run(["git", "checkout-index", "--all", f"--prefix={target}/"], cwd=ROOT, check=True)
    return target
