"""Is each job the tests share done by one helper module (issue 42)? Making an account, launching Chromium and
copying the course each have one home, which every test reuses instead of writing the steps again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kit.notebooks import ROOT

# A job → (what only its helper may write, in code: a command or a call; the helper).
JOBS = {"making an account": (r"\buseradd\b", "tests/shared/accounts.py"),
        "launching Chromium": (r"\bsync_playwright\b|\.launch\(", "tests/shared/browser.py"),
        "copying the course": (r"\bcheckout-index\b", "tests/shared/course_copy.py")}


def _code_lines(path: Path) -> list[str]:
    """The lines of `path` that hold code: docstrings and comments are allowed to name a job."""
    text = re.sub(r'"""(.|\n)*?"""', "", path.read_text(encoding="utf-8"))
    return [line.split("#")[0] for line in text.splitlines()]


@pytest.mark.parametrize("job", sorted(JOBS))
def test_is_each_shared_job_written_in_its_one_helper_alone(job):
    pattern, helper = JOBS[job]
    doing = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests").rglob("*.py")
                   if path != Path(__file__) and any(re.search(pattern, line) for line in _code_lines(path)))
    assert doing == [helper], f"{job}: {doing} (reuse {helper})"
