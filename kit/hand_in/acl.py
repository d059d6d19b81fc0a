"""POSIX access lists, written as the kernel stores them (the `system.posix_acl_access` attribute), so
that a file the instructor owns can be read by one student's account and nobody else: no setfacl, no
library, no root. The format is acl(5)'s: a version word, then (tag, permissions, id) entries."""

from __future__ import annotations

import errno
import os
import struct
import tempfile
from pathlib import Path

ATTRIBUTE = "system.posix_acl_access"
VERSION = 2
USER_OBJ, USER, GROUP_OBJ, MASK, OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
READ, WRITE = 4, 2
NO_ID = 0xFFFFFFFF
ENTRY = struct.Struct("<HHI")


class NoAccessLists(OSError):
    """The file system holding the exchange keeps no access lists."""


def _encode(entries: list[tuple[int, int, int]]) -> bytes:
    return struct.pack("<I", VERSION) + b"".join(ENTRY.pack(*entry) for entry in entries)


def owner_and(path: Path | str, reader_uid: int) -> None:
    """Make `path` readable and writable by its owner, readable by the account `reader_uid`, and by
    nobody else (mode 0600 and one named entry). Raises NoAccessLists where the file system has none."""
    os.chmod(path, 0o600)
    entries = [(USER_OBJ, READ | WRITE, NO_ID), (USER, READ, reader_uid), (GROUP_OBJ, 0, NO_ID),
               (MASK, READ, NO_ID), (OTHER, 0, NO_ID)]
    try:
        os.setxattr(path, ATTRIBUTE, _encode(entries))
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise NoAccessLists(e.errno, f"{path}: this file system keeps no access lists") from None
        raise


def readers(path: Path | str) -> set[int]:
    """The accounts named in `path`'s access list with read permission (its owner not included)."""
    try:
        data = os.getxattr(path, ATTRIBUTE)
    except OSError as e:
        if e.errno == errno.ENODATA:
            return set()
        raise
    entries = [ENTRY.unpack_from(data, offset) for offset in range(4, len(data), ENTRY.size)]
    return {uid for tag, permissions, uid in entries if tag == USER and permissions & READ}


def why_unsupported(folder: Path | str) -> str | None:
    """None if files in `folder` can carry access lists; else why not (a probe file, removed after)."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".acl-probe-") as probe:
            owner_and(probe.name, os.geteuid())
            if readers(probe.name) != {os.geteuid()}:
                return f"{folder}: an access list written there does not read back"
    except OSError as e:
        return f"{folder}: {e.strerror or e}"
    return None
