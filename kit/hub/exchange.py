"""nbgrader's shared exchange, made in advance by root with the tightest permissions stock nbgrader's
commands work with (`make_exchange`).

| folder | owner | mode | why |
|---|---|---|---|
| root | root | 1777 | students' commands check that it is writable; the sticky bit stops anyone removing or renaming another's entry |
| <course_id> | instructor | 0755 | made in advance, so no student can take the course's name first (jupyter/nbgrader#1225) |
| inbound | instructor | 3733 | a student can hand in, but not list, read or remove others' hand-ins (setgid: each is the instructor's group) |
| outbound | instructor | 0755 | the released assignment, readable by all |
| feedback | instructor | 0711 | feedback files are found by a secret name, never by listing |

Feedback is kept to its owner by a POSIX access list on each file (kit/hand_in/feedback.py), so the
exchange's file system must keep access lists: `require_access_lists` refuses one that does not.
"""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

from kit.hand_in.acl import why_unsupported

ROOT_MODE = 0o1777
COURSE_MODE = 0o755
FOLDERS = {"inbound": 0o3733, "outbound": 0o755, "feedback": 0o711}  # inside <root>/<course_id>


class ExchangeRefused(RuntimeError):
    """The exchange cannot be made safely; the message says why and what to do."""


def make_exchange(root: Path, course_id: str, instructor: str) -> Path:
    """Make (or bring back to its modes and owners) the exchange at `root` for course `course_id`,
    taught from the account `instructor`; returns <root>/<course_id>. Run as root."""
    account = pwd.getpwnam(instructor)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    _own(root, 0, 0, ROOT_MODE)
    course = root / course_id
    if not os.path.lexists(course):
        course.mkdir()
    elif course.lstat().st_uid not in (0, account.pw_uid):
        raise ExchangeRefused(f"{course} belongs to uid {course.lstat().st_uid}, not {instructor}: someone took "
                              f"the course's name first. Look at what is in it, remove it, and run this again.")
    _own(course, account.pw_uid, account.pw_gid, COURSE_MODE)
    for name, mode in FOLDERS.items():
        (course / name).mkdir(exist_ok=True)
        _own(course / name, account.pw_uid, account.pw_gid, mode)
    return course


def _own(folder: Path, uid: int, gid: int, mode: int) -> None:
    """chown and chmod `folder`, refusing a symlink or anything but a folder in its place."""
    if not stat.S_ISDIR(folder.lstat().st_mode):
        raise ExchangeRefused(f"{folder} is not a folder (a symlink or a file): remove it and run this again")
    os.chown(folder, uid, gid, follow_symlinks=False)
    os.chmod(folder, mode)  # after chown: chown clears setgid


def require_access_lists(folder: Path) -> None:
    """Refuse an exchange whose file system keeps no POSIX access lists."""
    reason = why_unsupported(folder)
    if reason:
        raise ExchangeRefused(f"the exchange's file system keeps no POSIX access lists ({reason}), so released "
                              f"feedback could not be kept to its student. Put the exchange on one that does "
                              f"(ext4, XFS, btrfs; NFS 4 with ACLs; mount option `acl`).")
