"""Stop a process at the moment it opens a file, to change the world under it (root only).

`OpenGate(path)` watches `path` with fanotify's permission events: the kernel makes the first process that
opens it wait, inside its open, until the gate lets it go. A test uses it to do something exactly while
another account's command is in the middle of its work (rewrite a hand-in while the collect copies it),
where waiting for a moment would be a race.
"""

from __future__ import annotations

import ctypes
import os
import select
import struct
from pathlib import Path

FAN_CLASS_CONTENT, FAN_MARK_ADD, FAN_MARK_REMOVE, FAN_OPEN_PERM, FAN_ALLOW = 0x04, 0x01, 0x02, 0x00010000, 0x01
AT_FDCWD = -100
EVENT = struct.Struct("=IBBHQii")  # struct fanotify_event_metadata: len, version, reserved, metadata_len, mask, fd, pid
RESPONSE = struct.Struct("=iI")    # struct fanotify_response: fd, response

_libc = ctypes.CDLL(None, use_errno=True)


class OpenGate:
    def __init__(self, path: Path):
        self.path = os.fsencode(path)
        self.fd = _libc.fanotify_init(FAN_CLASS_CONTENT, os.O_RDONLY | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "fanotify_init")
        self._mark(FAN_MARK_ADD)
        self.held: int | None = None

    def _mark(self, action: int) -> None:
        if _libc.fanotify_mark(self.fd, action, ctypes.c_uint64(FAN_OPEN_PERM), AT_FDCWD, self.path):
            raise OSError(ctypes.get_errno(), "fanotify_mark")

    def hold_first_open(self, timeout: float) -> int:
        """Wait until a process opens the file, and keep it waiting (no later open is held); its pid."""
        if not select.select([self.fd], [], [], timeout)[0]:
            raise TimeoutError(f"nothing opened {self.path!r} within {timeout} s")
        _, _, _, _, _, self.held, pid = EVENT.unpack_from(os.read(self.fd, EVENT.size))
        self._mark(FAN_MARK_REMOVE)
        return pid

    def release(self) -> None:
        """Let the held process's open go on."""
        if self.held is not None:
            os.write(self.fd, RESPONSE.pack(self.held, FAN_ALLOW))
            os.close(self.held)
            self.held = None

    def __enter__(self) -> OpenGate:
        return self

    def __exit__(self, *exc) -> None:
        self.release()
        os.close(self.fd)
