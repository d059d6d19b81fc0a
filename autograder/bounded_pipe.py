"""Talking to a process that ran student code: every read and write bounded in time and size.

Such a process (the confined child, the per-student grading process, the Dask
grading process above it) may write without end, trickle its bytes, or never
read what it is sent. `BoundedReader(fd, limit)` reads one pipe into a
bytearray and looks for a line's end only in the bytes that just arrived, so a
reply costs time and memory linear in its size. Every read stops at its
deadline (a `time.monotonic()` value; None: no deadline, for a trusted writer)
whether or not bytes keep coming, and refuses a reply as soon as it passes
`limit` bytes. `write_all` writes to such a process without ever blocking.

    line(deadline) -> bytearray | None      one line, without its newline; None: the pipe ended
    frame(deadline) -> bytearray | None     one frame (judge/frames.py: its length, a newline, the payload), whole
    exactly(n, deadline) -> bytearray | None  n bytes; None: the pipe ended first
    to_end(deadline, watch) -> bytearray    everything until the pipe ends
    write_all(fd, data, deadline)       all of `data`, or PastDeadline
    widen(*pipes)                       each pipe made to hold a CHUNK, where the system allows

They raise PastDeadline (the deadline came first), TooLong (more than `limit`
bytes) or Interrupted (a `watch`ed pipe became readable first); `frame`, NotAFrame
for bytes that do not start with a frame's length.
"""

from __future__ import annotations

import fcntl
import os
import select
import time

from autograder.judge.frames import frame_length

CHUNK = 1 << 20


def widen(*pipes) -> None:
    """Make each pipe (a file object) hold up to CHUNK bytes, not Linux's 64 KiB: a frame of megabytes (a
    stand-in's mask and weights) crosses in a few wake-ups of each end, not one per 64 KiB. Where the system
    refuses (an account past /proc/sys/fs/pipe-user-pages-soft, a smaller pipe-max-size), the pipe stays
    as it was: only slower."""
    for pipe in pipes:
        try:
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, CHUNK)
        except OSError:
            pass


class PastDeadline(Exception):
    """The deadline passed before the read or write was done."""


class TooLong(Exception):
    """The other end sent more than the reader's limit without finishing."""


class Interrupted(Exception):
    """A watched pipe became readable (its writer went away) before the read was done."""


class NotAFrame(ValueError):
    """The other end sent bytes that do not start with a frame's length."""


def _ready(fds: list[int], events: int, deadline: float | None, poll=None) -> list[int]:
    """The fds of `fds` ready for `events` within the deadline; PastDeadline once it has passed. `poll`: a
    `select.poll` object with `fds` registered for `events` already."""
    now = time.monotonic()
    if deadline is not None and now >= deadline:
        raise PastDeadline  # checked even while bytes keep coming
    if poll is None:
        poll = select.poll()  # not select.select: any fd number
        for fd in fds:
            poll.register(fd, events)
    found = poll.poll(None if deadline is None else max(1, int((deadline - now) * 1000) + 1))
    if not found:
        raise PastDeadline
    return [fd for fd, _ in found]


def _ready_now(fd: int) -> bool:
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    return bool(poll.poll(0))


class BoundedReader:
    """One pipe's bytes, read as they come, at most `limit` of them waiting to be used."""

    def __init__(self, fd: int, limit: int):
        self.fd, self.limit = fd, limit
        self._buffer = bytearray()
        self._searched = 0  # the first bytes of _buffer, known to hold no newline
        self._poll = select.poll()  # for the pipe alone
        self._poll.register(fd, select.POLLIN)

    def pending(self) -> bool:
        """Whether bytes are here or waiting in the pipe (or it ended), though nobody asked for them."""
        return bool(self._buffer) or _ready_now(self.fd)

    def _fill(self, deadline: float | None, watch: tuple[int, ...] = ()) -> bool:
        """Read what has arrived, waiting at most until the deadline; False when the pipe has ended."""
        ready = _ready([self.fd, *watch], select.POLLIN, deadline, None if watch else self._poll)
        if self.fd not in ready:
            raise Interrupted
        chunk = os.read(self.fd, CHUNK)
        self._buffer += chunk
        return bool(chunk)

    def line(self, deadline: float | None) -> bytearray | None:
        while (end := self._buffer.find(b"\n", self._searched)) < 0:
            self._searched = len(self._buffer)
            if self._searched > self.limit:
                raise TooLong
            if not self._fill(deadline):
                return None
        if end > self.limit:
            raise TooLong
        return self._take(end, 1)

    def frame(self, deadline: float | None) -> bytearray | None:
        """A frame's length is read first: a longer frame is refused before its payload is read."""
        while True:
            try:
                found = frame_length(self._buffer)
            except ValueError:
                raise NotAFrame from None
            if found is not None:
                size, start = found
                return self.exactly(start + size, deadline)
            if not self._fill(deadline):
                return None

    def exactly(self, n: int, deadline: float | None) -> bytearray | None:
        if n > self.limit:
            raise TooLong
        while len(self._buffer) < n:
            if not self._fill(deadline):
                return None
        return self._take(n, 0)

    def to_end(self, deadline: float | None, watch: tuple[int, ...] = ()) -> bytearray:
        while self._fill(deadline, watch):
            if len(self._buffer) > self.limit:
                raise TooLong
        return self._take(len(self._buffer), 0)

    def _take(self, n: int, skip: int) -> bytearray:
        """The first n bytes, removed with `skip` more (the newline). Whichever is shorter, those bytes or
        the rest, is copied: taking costs no more than the bytes taken."""
        if len(self._buffer) - n - skip <= n:
            taken, self._buffer = self._buffer, self._buffer[n + skip:]
            del taken[n:]
        else:
            taken = self._buffer[:n]
            del self._buffer[:n + skip]  # a bytearray drops its head without moving the rest
        self._searched = 0
        return taken


def write_all(fd: int, data: bytes, deadline: float | None) -> None:
    """Write all of `data` to the pipe `fd` (made non-blocking here) by the deadline; PastDeadline if the
    reader has not taken it all by then, BrokenPipeError if it has gone."""
    os.set_blocking(fd, False)
    view, done = memoryview(data), 0
    while done < len(view):
        _ready([fd], select.POLLOUT, deadline)
        try:
            done += os.write(fd, view[done:done + CHUNK])
        except BlockingIOError:  # room for less than a pipe's atomic write: wait for more
            continue
