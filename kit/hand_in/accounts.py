"""Which accounts may hand in for a student id (course.toml's [exchange]).

On a course's own exchange (one machine, one account: `make demo`, a laptop)
every hand-in is the instructor's own, so the account running the collect.
On a shared exchange (a JupyterHub) it is the student's account: the account
named as the id, unless the `accounts` CSV file (columns id, account) maps the
id to another name. An id that maps to no account on this machine has none.
"""

from __future__ import annotations

import csv
import os
import pwd
from pathlib import Path

from kit.course import Course
from kit.hand_in.tree import Refused


def account_map(course: Course, root: Path) -> dict[str, str]:
    """id → account, from course.toml's `accounts` file (empty: none)."""
    if not course.accounts:
        return {}
    with open(Path(root) / course.accounts, newline="") as f:
        return {row["id"]: row["account"] for row in csv.DictReader(f)}


def owners_of(student: str, course: Course, accounts: dict[str, str]) -> set[int]:
    """The uids whose files may be `student`'s hand-in; raises Refused if the id has no account here."""
    if not course.shared_exchange:
        return {os.geteuid()}
    account = accounts.get(student, student)
    try:
        return {pwd.getpwnam(account).pw_uid}
    except KeyError:
        raise Refused(f"no account {account!r} on this machine hands in for {student!r}") from None
