"""One confined process of a student's grading: started, ready, measured from outside, ended.

    scratch/grader/    child.py, seccomp.py and the judge: the grader's, read-only to the child
    scratch/prepared/  the student's notebooks restored for grading and the release's support files,
                       read-only to the child
    scratch/work/      an empty folder: the child's own work folder is a tmpfs of `Limits.disk_bytes`
                       mounted over it, made anew for each child and gone when it ends (autograder/sandbox.py)

The child (child.py) copies prepared/ into its work folder, loads its own
lock (seccomp.py: no new program, process or namespace), and says it is ready,
all before any student code runs. Nothing the child can write outlives it or
is ever read by the grader as a path: no scratch folder is the child's. A
grader graded unconfined (a course that opted out) gives each child a fresh
work folder of its own on the disk, removed whatever its code did to it
(`remove_tree`).

Memory is measured from outside, from the kernel's count of the child process
(`peak_since_ready`): its peak resident memory since it said it was ready,
before it ran any student code; between two measured cases the grader sets the
peak back to what the child holds (`forget_peak`), so an earlier case's peak is
forgotten and what the notebook still holds counts. The child cannot reset that count (it has no
/proc), move work into another process or program (its lock), nor hide work
in memory it took while its notebook loaded (that memory came after the
mark, and counts).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import sandbox
from autograder.bounded_pipe import BoundedReader, PastDeadline, TooLong, widen, write_all
from autograder.judge import frame_of, from_frame
from autograder.sandbox import Limits

STARTING_SECONDS = 60  # a child's start, up to its ready message, on a loaded machine


class ChildFailed(Exception):
    """The child ended, or said something other than that it was ready, before any student code ran."""


def status_bytes(pid: int, field: str) -> int | None:
    """A `/proc/<pid>/status` field in bytes; None once the process is gone (or the field with it)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class GradingChild:
    """One child process serving `Submission`'s requests (see the module docstring): every notebook's, or
    the `measured` notebook's alone, whose memory it counts from its ready message."""

    def __init__(self, scratch: Path, hidden: tuple[Path, ...], seconds_per_call: float, limits: Limits,
                 confinement: str, user: int | None, reply_bytes: int, measured: str | None = None):
        self.confinement = confinement
        confined = confinement != sandbox.UNCONFINED
        grader = scratch / "grader"
        self.work = scratch / "work" if confined else Path(tempfile.mkdtemp(prefix="work-", dir=scratch))
        env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "MPLBACKEND": "Agg", "HOME": str(self.work)}
        world = sandbox.World(hidden, Path(sys.prefix), Path(sys.base_prefix), scratch, self.work)
        self.process = sandbox.start(
            [sys.executable, "-I", str(grader / "child.py"), str(grader / "judge"), str(scratch / "prepared"),
             str(self.work), str(seconds_per_call), confinement, measured or "-"], world, limits, confinement, user,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.work,
            env=env, text=False, pass_fds=())
        widen(self.process.stdin, self.process.stdout)
        self.reader = BoundedReader(self.process.stdout.fileno(), reply_bytes)
        self.notebooks: set[str] = set()  # those whose cases it was asked (whose code it may have run)
        self._pid: int | None = None
        self.resident_at_ready: int | None = None
        try:
            self._await_ready()
        except BaseException:
            self.stop()
            raise

    def _await_ready(self) -> None:
        """Wait for the child's first message, {"ready": true}, and mark its resident memory then."""
        try:
            frame = self.reader.frame(time.monotonic() + STARTING_SECONDS)
            ready = frame is not None and from_frame(frame) == {"ready": True}
        except (PastDeadline, TooLong, ValueError):
            ready = False
        if not ready:
            raise ChildFailed("the grading process could not start (it ended before running any of your code)")
        self.resident_at_ready = status_bytes(self.pid, "VmRSS")

    @property
    def pid(self) -> int:
        """The child's own process id as the grader sees it (under the PID namespace's init)."""
        if self._pid is None:
            self._pid = sandbox.child_pid(self.process, self.confinement)
        return self._pid

    def peak_since_ready(self) -> int | None:
        """The most resident memory the child has held beyond its mark at ready; None when it cannot be
        read (the child ended)."""
        return self._beyond_ready("VmHWM")

    def held_since_ready(self) -> int | None:
        """The resident memory the child holds now beyond its mark at ready (what its notebooks keep, once a
        call is over); None when it cannot be read."""
        return self._beyond_ready("VmRSS")

    def _beyond_ready(self, field: str) -> int | None:
        """A /proc status field of the child, in bytes, less what it held when it said it was ready."""
        now = status_bytes(self.pid, field)
        if now is None or self.resident_at_ready is None:
            return None
        return max(0, now - self.resident_at_ready)

    def forget_peak(self) -> None:
        """Set the kernel's highest mark of the child's resident memory back to what it holds now (/proc's
        clear_refs, Linux 4.0), so that what it held at an earlier case's peak is forgotten and what it still
        holds counts. Where the grader may not (a child that made itself undumpable, as an ordinary account;
        an older kernel), the mark stays as it was."""
        with contextlib.suppress(OSError):
            fd = os.open(f"/proc/{self.pid}/clear_refs", os.O_WRONLY)
            try:
                os.write(fd, b"5")
            finally:
                os.close(fd)

    def tidy(self, deadline: float) -> bool:
        """Ask the child to give back the memory its freed objects still take (child.py), and wait for it to
        say so: did it, before the deadline? (An answer's code may have taken the child over: what it holds is
        counted again all the same.)"""
        try:
            self.send(frame_of({"tidy": True}), deadline)
            frame = self.reader.frame(deadline)
            return frame is not None and from_frame(frame) == {"tidy": True}
        except (OSError, PastDeadline, TooLong, ValueError):
            return False

    def send(self, frame: bytes, deadline: float) -> None:
        """Write a frame to the child, never blocking past the deadline (a child that does not read)."""
        write_all(self.process.stdin.fileno(), frame, deadline)

    def ended_or_spoke(self) -> bool:
        """Has it ended, or written what nobody asked for (a process its code left behind)?"""
        return self.process.poll() is not None or self.reader.pending()

    def wait(self, timeout: float) -> int:
        """The child's own exit code once it ends (subprocess.TimeoutExpired if it does not)."""
        return sandbox.exit_code(self.process.wait(timeout=timeout), self.confinement)

    def stop(self) -> None:
        """End the child and every process it started; an unconfined child's work folder goes with it."""
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:  # the unwritten rest of a request: dropped
                pass
        if self.confinement == sandbox.UNCONFINED:
            remove_tree(self.work)


def remove_tree(folder: Path) -> None:
    """Remove `folder` and all in it, whatever modes its owner's code left (a folder made read-only or
    unreadable), never following a link out of it. Only once no process writes there any more."""
    if folder.is_symlink() or not folder.is_dir():
        folder.unlink(missing_ok=True)
        return
    os.chmod(folder, 0o700)
    for parent, folders, _ in os.walk(folder):  # top-down: each folder opened before it is walked
        for name in folders:
            path = os.path.join(parent, name)
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):  # os.walk lists links to folders among folders
                    os.chmod(path, 0o700)
    shutil.rmtree(folder, ignore_errors=True)
