"""Running the adversarial suite as an ordinary account, as an instructor without root grades.

`run_as_ordinary_account()` (root only) makes the account `attention-grader`
(tests/shared/accounts.py) and a copy of the course in its home (git's index, as every
course copy of the tests: tests/shared/course_copy.py), then runs the given
tests there as that account, in the environment every account can run
(tests/shared/shared_python.py).
"""

from __future__ import annotations

import subprocess

from tests.shared.accounts import command_as, give, make_account
from tests.shared.course_copy import copy_course
from tests.shared.shared_python import environment

ACCOUNT = "attention-grader"


def run_as_ordinary_account(*tests: str) -> subprocess.CompletedProcess:
    """Run `tests` as ACCOUNT on its own copy of the course; returns pytest's finished process."""
    home = make_account(ACCOUNT)
    course, tmp = home / "course", home / "tmp"
    copy_course(course)
    tmp.mkdir()
    give(ACCOUNT, course, tmp)
    return subprocess.run(command_as(ACCOUNT, environment(), "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests,
                                     TMPDIR=str(tmp)),
                          cwd=course, capture_output=True, text=True)
