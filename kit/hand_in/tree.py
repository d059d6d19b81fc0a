"""A hand-in copied out of a folder that its owner can still change, lending it none of the reader's rights.

`copy_hand_in(inbound, name, owners, limits, target)` first walks the hand-in
from its metadata alone (`lstat` through open folder descriptors, never a path
followed twice): only folders and regular files, each owned by one of
`owners`, each file with one name (no hard link to a file elsewhere), each
name printable, and the sizes within `limits`, counting a file's apparent and
allocated size both (a sparse file is as large as it claims). Only then does
it copy, opening every file beside its checked folder with O_NOFOLLOW (and
O_NONBLOCK, so a pipe swapped in meanwhile cannot stall it), checking that
what it opened is the very file it checked, and reading no more than the
limit allows. Anything else raises `Refused`, with a one-line reason; the
target folder then holds a partial copy for the caller to remove.
"""

from __future__ import annotations

import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
CHUNK = 1 << 20
NOT_A_FILE = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket",
              stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


class Refused(Exception):
    """A hand-in the collect will not take; str() is the reason, one line."""


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int
    max_submission_bytes: int
    max_entries: int = 2000   # files and folders in one hand-in
    max_depth: int = 16       # folders within folders


@dataclass(frozen=True)
class _Entry:
    path: PurePosixPath  # within the hand-in
    folder_fd: int       # the open folder that holds it
    status: os.stat_result


@dataclass(frozen=True)
class Copied:
    files: int
    bytes: int
    changed_at: float    # the latest inode change (ctime) seen in the hand-in: no account can set it back


def mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def shown(name: str) -> str:
    """A name as it can be printed on one line: control characters and undecodable bytes escaped."""
    return name if name.isprintable() else repr(name)[1:-1]


def size_of(status: os.stat_result) -> int:
    """What a file costs: the larger of its apparent and its allocated size."""
    return max(status.st_size, status.st_blocks * 512)


def _check(entry: _Entry, owners: set[int], limits: Limits) -> None:
    where, status = entry.path, entry.status
    if not where.name.isprintable():
        raise Refused(f"the name {shown(str(where))!r} holds control characters or undecodable bytes")
    kind = stat.S_IFMT(status.st_mode)
    if kind in NOT_A_FILE:
        raise Refused(f"{shown(str(where))} is {NOT_A_FILE[kind]}")
    if kind not in (stat.S_IFDIR, stat.S_IFREG):
        raise Refused(f"{shown(str(where))} is neither a file nor a folder")
    if status.st_uid not in owners:
        raise Refused(f"{shown(str(where))} belongs to {account_name(status.st_uid)}, not to "
                      f"{' or '.join(sorted(map(account_name, owners)))}")
    if kind == stat.S_IFREG:
        if status.st_nlink != 1:
            raise Refused(f"{shown(str(where))} is a hard link ({status.st_nlink} names for one file)")
        if size_of(status) > limits.max_file_bytes:
            raise Refused(f"{shown(str(where))} is {mib(size_of(status))}, over the limit of "
                          f"{mib(limits.max_file_bytes)} per file")


def _open_folder(name: str, parent_fd: int, status: os.stat_result) -> int:
    fd = os.open(name, FOLDER, dir_fd=parent_fd)
    if not os.path.samestat(status, os.fstat(fd)):
        os.close(fd)
        raise Refused(f"{shown(name)} changed while it was read")
    return fd


def _walk(top_fd: int, owners: set[int], limits: Limits, fds: list[int]) -> list[_Entry]:
    """Every entry below the open folder `top_fd`, checked, parents before children (folders it opens go to fds)."""
    entries: list[_Entry] = []
    total = 0
    pending = [(PurePosixPath(), top_fd)]
    while pending:
        where, folder_fd = pending.pop()
        if len(where.parts) > limits.max_depth:
            raise Refused(f"{shown(str(where))} lies more than {limits.max_depth} folders deep")
        for name in sorted(os.listdir(folder_fd)):
            entry = _Entry(where / name, folder_fd, os.stat(name, dir_fd=folder_fd, follow_symlinks=False))
            _check(entry, owners, limits)
            entries.append(entry)
            if len(entries) > limits.max_entries:
                raise Refused(f"it holds more than {limits.max_entries} files and folders")
            if stat.S_ISDIR(entry.status.st_mode):
                fds.append(_open_folder(name, folder_fd, entry.status))
                pending.append((entry.path, fds[-1]))
            else:
                total += size_of(entry.status)
                if total > limits.max_submission_bytes:
                    raise Refused(f"it holds more than {mib(limits.max_submission_bytes)}, the limit per hand-in")
    return entries


def _copy_file(entry: _Entry, target: Path, allowed: int) -> int:
    """Copy one checked file to `target`; returns its size (never reads more than `allowed` bytes)."""
    fd = os.open(entry.path.name, FILE, dir_fd=entry.folder_fd)
    try:
        now = os.fstat(fd)
        if not (os.path.samestat(entry.status, now) and stat.S_ISREG(now.st_mode) and now.st_nlink == 1):
            raise Refused(f"{shown(str(entry.path))} changed while it was read")
        copied = 0
        with open(target, "xb") as out:
            while chunk := os.read(fd, min(CHUNK, allowed + 1 - copied)):
                copied += len(chunk)
                if copied > allowed:
                    raise Refused(f"{shown(str(entry.path))} grew past the limit while it was read")
                out.write(chunk)
        return copied
    except BlockingIOError:
        raise Refused(f"{shown(str(entry.path))} changed while it was read") from None
    finally:
        os.close(fd)


def copy_hand_in(inbound: Path, name: str, owners: set[int], limits: Limits, target: Path,
                 ignored=lambda name: False) -> Copied:
    """Copy the hand-in `inbound/name` into the new folder `target` (see the module's docstring); entries
    whose name `ignored` accepts are checked but not copied. Raises Refused."""
    if not name.isprintable():
        raise Refused(f"its name {shown(name)!r} holds control characters or undecodable bytes")
    fds = [os.open(inbound, FOLDER)]
    try:
        top = os.stat(name, dir_fd=fds[0], follow_symlinks=False)
        if not stat.S_ISDIR(top.st_mode):
            raise Refused(f"it is {NOT_A_FILE.get(stat.S_IFMT(top.st_mode), 'not a folder')}, not a folder")
        if top.st_uid not in owners:
            raise Refused(f"it belongs to {account_name(top.st_uid)}, not to "
                          f"{' or '.join(sorted(map(account_name, owners)))}")
        fds.append(_open_folder(name, fds[0], top))
        entries = _walk(fds[1], owners, limits, fds)
        target.mkdir()
        files, size = 0, 0
        for entry in entries:
            if any(ignored(part) for part in entry.path.parts):
                continue
            if stat.S_ISDIR(entry.status.st_mode):
                (target / entry.path).mkdir()
            else:
                size += _copy_file(entry, target / entry.path, min(limits.max_file_bytes,
                                                                  limits.max_submission_bytes - size))
                files += 1
        changed = max([top.st_ctime, *(entry.status.st_ctime for entry in entries)])
        return Copied(files, size, changed)
    except FileNotFoundError as e:
        raise Refused(f"{shown(e.filename or name)} vanished while it was read") from None
    finally:
        for fd in fds:
            os.close(fd)
