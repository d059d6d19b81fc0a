"""The world a student's code runs in: limits, and nothing of the course in reach.

`confine(...)` runs in the child between fork and exec (Popen's preexec_fn):

- resource limits: CPU seconds, address space, size of any file written,
  open files, and no core dumps;
- when the grader runs as root (an instructor's grading machine, CI): a new
  mount namespace in which every top-level folder but the system's own
  (/usr, /etc, /dev, ...), and the course folder wherever it is, are empty
  tmpfs mounts, with only the Python environment and the student's own
  scratch folder bound back in; a new network namespace with no interfaces; then the
  process drops to an unprivileged user of its own and can never regain
  privileges. The reference solution, the graders, hidden values, the
  gradebook and other students' work are not hidden by name: they are absent.

Without root, on a self-learner's machine, only the limits apply (their own
code, their own files); `isolated()` says which world a child gets.
"""

from __future__ import annotations

import ctypes
import os
import resource
from pathlib import Path
from typing import NamedTuple

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
FIRST_SANDBOX_USER = 1_000_000  # far above any account of the machine
# Top-level folders a Python process needs; every other one (/work, /srv, /opt,
# /home, /root, /tmp, /var, ...) may hold a course, a clone or a student's work.
SYSTEM_FOLDERS = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "sys"}


class Limits(NamedTuple):
    cpu_seconds: int = 120
    memory_bytes: int = 2 << 30
    file_bytes: int = 64 << 20
    open_files: int = 64
    processes: int = 64


def isolated() -> bool:
    """Can children be given a world of their own (needs root)?"""
    return os.geteuid() == 0


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"sandbox: {what}: {os.strerror(errno)}")


def _mount(libc, source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else str(s).encode()  # noqa: E731
    _check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _bind(libc, source: Path, target: Path, read_only: bool) -> None:
    target.mkdir(parents=True, exist_ok=True)
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    if read_only:
        _mount(libc, None, target, None, MS_BIND | MS_REC | MS_RDONLY | MS_REMOUNT)


def confine(course_roots: tuple[Path, ...], prefix: Path, base_prefix: Path, scratch: Path, limits: Limits) -> None:
    """Called in the child before exec; see the module docstring."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    os.setsid()
    if not isolated():
        return
    libc = _libc()
    keep = [(prefix, True), (base_prefix, True), (scratch, False)]
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    # What must stay reachable is bound into a private staging area before the
    # tmpfs mounts cover it, then bound back to its own path.
    staging = Path("/dev/shm")
    _mount(libc, "tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=700")
    for index, (path, _) in enumerate(keep):
        _bind(libc, path, staging / str(index), read_only=False)
    # Hidden: every top-level folder outside the system's, the course wherever it is,
    # and any folder above a kept path that others may not enter (it would block the way back).
    # A folder under one already hidden no longer exists, and is skipped.
    top = {p for p in Path("/").iterdir() if p.name not in SYSTEM_FOLDERS and p.is_dir() and not p.is_symlink()}
    closed = {a for path, _ in keep for a in path.parents if a.is_dir() and not a.stat().st_mode & 0o001}
    for folder in sorted(top | {*course_roots, Path.home()} | closed, key=lambda p: len(p.parts)):
        if folder != Path("/") and folder.is_dir() and not folder.is_symlink():
            _mount(libc, "tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for index, (path, read_only) in enumerate(keep):
        _bind(libc, staging / str(index), path, read_only)
    # A user of its own (from its process id, unique while it runs): a sibling child
    # grading another student at the same time cannot look into it through /proc.
    user = FIRST_SANDBOX_USER + os.getpid()
    for path in (scratch, scratch / "work"):
        os.chown(path, user, user)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    os.setgroups([])
    os.setgid(user)
    os.setuid(user)
