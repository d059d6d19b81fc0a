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

import errno
import os
import pwd
import stat
from pathlib import Path

from kit.hand_in.acl import why_unsupported
from kit.hand_in.tree import FOLDER

ROOT_MODE = 0o1777
COURSE_MODE = 0o755
FOLDERS = {"inbound": 0o3733, "outbound": 0o755, "feedback": 0o711}  # inside <root>/<course_id>


class ExchangeRefused(RuntimeError):
    """The exchange cannot be made safely; the message says why and what to do."""


def make_exchange(root: Path, course_id: str, instructor: str) -> Path:
    """Make (or bring back to its modes and owners) the exchange at `root` for course `course_id`,
    taught from the account `instructor`; returns <root>/<course_id>. Run as root. No symbolic link is
    followed on the way, in `root` itself or below it: every folder is made and opened beside its parent's
    open descriptor, and a link where a folder should be is refused (a link planted in a folder another
    account can write would otherwise lead root's chown and chmod anywhere)."""
    account = pwd.getpwnam(instructor)
    root = Path(os.path.abspath(root))
    fd = _walk_to(root)
    try:
        _own(fd, root, 0, 0, ROOT_MODE)
        course_fd = _folder_in(fd, root / course_id)
    finally:
        os.close(fd)
    course = root / course_id
    try:
        owner = os.fstat(course_fd).st_uid
        if owner not in (0, account.pw_uid):
            raise ExchangeRefused(f"{course} belongs to uid {owner}, not {instructor}: someone took the course's "
                                  f"name first. Look at what is in it, remove it, and run this again.")
        _own(course_fd, course, account.pw_uid, account.pw_gid, COURSE_MODE)
        for name, mode in FOLDERS.items():
            folder_fd = _folder_in(course_fd, course / name)
            try:
                _own(folder_fd, course / name, account.pw_uid, account.pw_gid, mode)
            finally:
                os.close(folder_fd)
    finally:
        os.close(course_fd)
    return course


def _folder_in(parent_fd: int, path: Path) -> int:
    """An open descriptor of the folder `path`, the entry path.name of the open folder `parent_fd`, made
    (mode 0755, root's) if missing; refuses a symbolic link or anything but a folder in its place."""
    try:
        os.mkdir(path.name, 0o755, dir_fd=parent_fd)
    except FileExistsError:
        pass
    try:
        return os.open(path.name, FOLDER, dir_fd=parent_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise ExchangeRefused(f"{path} is not a folder (a symbolic link or a file): give the exchange's real "
                                  f"path, or remove it, and run this again") from None
        raise


def _walk_to(path: Path) -> int:
    """An open descriptor of the absolute folder `path`, its missing folders made, no link followed."""
    fd = os.open("/", FOLDER)
    for depth, name in enumerate(path.parts[1:], start=2):
        try:
            inner = _folder_in(fd, Path(*path.parts[:depth]))
        finally:
            os.close(fd)
        fd = inner
    return fd


def _own(fd: int, path: Path, uid: int, gid: int, mode: int) -> None:
    """chown and chmod the open folder `fd` (`path`, for messages)."""
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        raise ExchangeRefused(f"{path} is not a folder: remove it and run this again")
    os.fchown(fd, uid, gid)
    os.fchmod(fd, mode)  # after chown: chown clears setgid


def require_access_lists(folder: Path) -> None:
    """Refuse an exchange whose file system keeps no POSIX access lists."""
    reason = why_unsupported(folder)
    if reason:
        raise ExchangeRefused(f"the exchange's file system keeps no POSIX access lists ({reason}), so released "
                              f"feedback could not be kept to its student. Put the exchange on one that does "
                              f"(ext4, XFS, btrfs; NFS 4 with ACLs; mount option `acl`).")
