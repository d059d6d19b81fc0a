"""A hand-in copied out of a folder that its owner can still change, lending it none of the reader's rights.

`copy_hand_in(inbound, name, owners, limits, target)` first walks the hand-in
from its metadata alone (`lstat` through open folder descriptors, never a path
followed twice): only folders and regular files, each owned by one of
`owners`, each file with one name (no hard link to a file elsewhere), each
name printable, and the sizes within `limits`, counting a file's apparent and
allocated size both (a sparse file is as large as it claims). Only then does
it copy, opening every file beside its checked folder with O_NOFOLLOW (and
O_NONBLOCK, so a pipe swapped in meanwhile cannot stall it), checking that
what it opened is the very file it checked, unchanged, and reading no more
than the limit allows. Once every file is copied it walks the hand-in again:
anything changed since it was checked (a file rewritten in place, one added,
removed, renamed or replaced by a link, its inode change time moved) refuses
the hand-in, so the copy holds the very bytes it was checked with, and the
time it reports (the latest inode change in the hand-in, which no account can
set back) is those bytes' time. A folder's descriptor is open only while the
walk is inside it: a hand-in holds at most `max_depth` + 2 open at once,
however many folders it has.

Anything else, and any error reading the hand-in (a file its owner made
unreadable, a link swapped in: ELOOP), raises `Refused`, with a one-line
reason; an error writing the copy (its disk full) is raised as it comes. The
target folder then holds a partial copy for the caller to remove.

One job, kept whole past 250 lines: the check, the copy and the check again walk one tree with the same
open folder descriptors and limits; apart, each would be a copy of the others' walk.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
from collections.abc import Iterator
from contextlib import closing
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
class Copied:
    files: int
    bytes: int
    changed_at: float    # the latest inode change (ctime) of what was copied: no account can set it back


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


def _check(where: PurePosixPath, status: os.stat_result, owners: set[int], limits: Limits) -> None:
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


def _version(status: os.stat_result) -> tuple:
    """What changes when a file or folder is changed in any way (its access time aside)."""
    return (status.st_ino, status.st_dev, status.st_mode, status.st_uid, status.st_nlink, status.st_size,
            status.st_mtime_ns, status.st_ctime_ns)


def _unreadable(where: str, error: OSError) -> Refused:
    """The refusal for an error reading `where` of a hand-in."""
    if isinstance(error, FileNotFoundError):
        return Refused(f"{shown(where)} vanished while it was read")
    if isinstance(error, PermissionError):
        return Refused(f"{shown(where)} cannot be read by {account_name(os.geteuid())}, who collects: its owner "
                       f"made it unreadable (hand in again with nbgrader submit)")
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EAGAIN):  # a link or a pipe swapped in since the check
        return Refused(f"{shown(where)} changed while it was read")
    return Refused(f"{shown(where)} cannot be read: {error.strerror or error}")


def _open_folder(where: PurePosixPath, parent_fd: int, status: os.stat_result) -> int:
    try:
        fd = os.open(where.name, FOLDER, dir_fd=parent_fd)
    except OSError as e:
        raise _unreadable(str(where), e) from None
    if not os.path.samestat(status, os.fstat(fd)):
        os.close(fd)
        raise Refused(f"{shown(str(where))} changed while it was read")
    return fd


def _entries(folder_fd: int, limits: Limits, where: PurePosixPath = PurePosixPath()
             ) -> Iterator[tuple[PurePosixPath, int, os.stat_result]]:
    """(path in the hand-in, its folder's descriptor, lstat) of every entry below the open folder, depth first,
    each folder's entry before what it holds; a folder is open only while its entries are given."""
    if len(where.parts) > limits.max_depth:
        raise Refused(f"{shown(str(where))} lies more than {limits.max_depth} folders deep")
    try:
        names = sorted(os.listdir(folder_fd))
    except OSError as e:
        raise _unreadable(str(where), e) from None
    for name in names:
        try:
            status = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        except OSError as e:
            raise _unreadable(str(where / name), e) from None
        yield where / name, folder_fd, status
        if stat.S_ISDIR(status.st_mode):
            fd = _open_folder(where / name, folder_fd, status)
            try:
                yield from _entries(fd, limits, where / name)
            finally:
                os.close(fd)


def _walk(top_fd: int, owners: set[int], limits: Limits) -> dict[PurePosixPath, os.stat_result]:
    """Every entry below the open folder `top_fd`, checked: path → lstat, parents before children."""
    checked, total = {}, 0
    with closing(_entries(top_fd, limits)) as entries:
        for where, _, status in entries:
            _check(where, status, owners, limits)
            checked[where] = status
            if len(checked) > limits.max_entries:
                raise Refused(f"it holds more than {limits.max_entries} files and folders")
            if not stat.S_ISDIR(status.st_mode):
                total += size_of(status)
                if total > limits.max_submission_bytes:
                    raise Refused(f"it holds more than {mib(limits.max_submission_bytes)}, the limit per hand-in")
    return checked


def _copy_file(where: PurePosixPath, folder_fd: int, checked: os.stat_result, target: Path, allowed: int) -> int:
    """Copy one checked file to `target`, unchanged since it was checked; returns its size (never reads more
    than `allowed` bytes)."""
    try:
        fd = os.open(where.name, FILE, dir_fd=folder_fd)
    except OSError as e:
        raise _unreadable(str(where), e) from None
    try:
        if _version(os.fstat(fd)) != _version(checked):
            raise Refused(f"{shown(str(where))} changed while it was read")
        copied = 0
        with open(target, "xb") as out:  # an error writing the copy is the caller's, not the hand-in's
            while chunk := _read(fd, min(CHUNK, allowed + 1 - copied), where):
                copied += len(chunk)
                if copied > allowed:
                    raise Refused(f"{shown(str(where))} grew past the limit while it was read")
                out.write(chunk)
        if _version(os.fstat(fd)) != _version(checked):
            raise Refused(f"{shown(str(where))} changed while it was read")
        return copied
    finally:
        os.close(fd)


def _read(fd: int, size: int, where: PurePosixPath) -> bytes:
    try:
        return os.read(fd, size)
    except OSError as e:  # EAGAIN: a read that would wait, so not the regular file that was checked
        raise _unreadable(str(where), e) from None


def _copy(top_fd: int, checked: dict, limits: Limits, target: Path, ignored) -> tuple[int, int]:
    """Copy every checked entry below the open folder `top_fd` into `target`; (files, bytes)."""
    files, size = 0, 0
    with closing(_entries(top_fd, limits)) as entries:
        for where, folder_fd, status in entries:
            if where not in checked or _version(status) != _version(checked[where]):
                raise Refused(f"{shown(str(where))} changed while it was read")
            if any(ignored(part) for part in where.parts):
                continue
            if stat.S_ISDIR(status.st_mode):
                (target / where).mkdir()
            else:
                size += _copy_file(where, folder_fd, status, target / where,
                                   min(limits.max_file_bytes, limits.max_submission_bytes - size))
                files += 1
    return files, size


def require_owner(status: os.stat_result, owners: set[int]) -> None:
    """Refused unless a hand-in's folder (its lstat) belongs to one of `owners`."""
    if status.st_uid not in owners:
        raise Refused(f"it belongs to {account_name(status.st_uid)}, not to "
                      f"{' or '.join(sorted(map(account_name, owners)))}")


def _top(inbound_fd: int, name: str) -> os.stat_result:
    """The lstat of the hand-in `name` in the open inbound folder; Refused unless it is a folder."""
    try:
        top = os.stat(name, dir_fd=inbound_fd, follow_symlinks=False)
    except OSError as e:
        raise _unreadable(name, e) from None
    if not stat.S_ISDIR(top.st_mode):
        raise Refused(f"it is {NOT_A_FILE.get(stat.S_IFMT(top.st_mode), 'not a folder')}, not a folder")
    return top


def copy_hand_in(inbound: Path, name: str, owners: set[int], limits: Limits, target: Path,
                 ignored=lambda name: False) -> Copied:
    """Copy the hand-in `inbound/name` into the new folder `target` (see the module's docstring); entries
    whose name `ignored` accepts are checked but not copied. Raises Refused."""
    if not name.isprintable():
        raise Refused(f"its name {shown(name)!r} holds control characters or undecodable bytes")
    inbound_fd = os.open(inbound, FOLDER)
    try:
        top = _top(inbound_fd, name)
        require_owner(top, owners)
        top_fd = _open_folder(PurePosixPath(name), inbound_fd, top)
        try:
            checked = _walk(top_fd, owners, limits)
            target.mkdir()
            files, size = _copy(top_fd, checked, limits, target, ignored)
            again = _walk(top_fd, owners, limits)  # after the copy: is the hand-in still what was copied?
            if {k: _version(v) for k, v in again.items()} != {k: _version(v) for k, v in checked.items()} \
                    or _version(os.fstat(top_fd)) != _version(top):
                raise Refused("it changed while it was read")
        finally:
            os.close(top_fd)
        return Copied(files, size, max([top.st_ctime, *(status.st_ctime for status in checked.values())]))
    finally:
        os.close(inbound_fd)


def last_changed(inbound: Path, name: str, limits: Limits) -> float:
    """The latest inode change time (Unix seconds) of the hand-in `inbound/name` and everything in it, read as
    `copy_hand_in` reads it, no link followed: how long it has been still (the grading service waits for a
    hand-in nbgrader's submit is still writing). Raises Refused for a hand-in that cannot be walked."""
    inbound_fd = os.open(inbound, FOLDER)
    try:
        top = _top(inbound_fd, name)
        top_fd = _open_folder(PurePosixPath(name), inbound_fd, top)
        try:
            latest, count = top.st_ctime, 0
            with closing(_entries(top_fd, limits)) as entries:
                for _, _, status in entries:
                    latest, count = max(latest, status.st_ctime), count + 1
                    if count > limits.max_entries:
                        raise Refused(f"it holds more than {limits.max_entries} files and folders")
            return latest
        finally:
            os.close(top_fd)
    finally:
        os.close(inbound_fd)
