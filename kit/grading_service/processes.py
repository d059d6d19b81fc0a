"""A round's process: forked from the service, in a session of its own, and ended whole.

The round runs in a process forked from the service (which has imported
nbgrader and built the hidden cases once), leading a session of its own: every
process it starts (nbgrader's worker processes, the grader's stand-in
servers) is in that session, and each confined child dies with its grader
(autograder/sandbox.py). It dies with the service (PR_SET_PDEATHSIG). A
service started again after a crash ends whatever is left of the last round's
session (`end_session`) before it takes any hand-in: the session's number and
its leader's start time are in the journal, and Linux gives no new process a
number still used as a session's, so a session found under that number with its
leader gone, or with its leader of that start time, is the round's.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
import traceback
from collections.abc import Callable

from autograder.sandbox import PR_SET_PDEATHSIG, process_fields, start_ticks


def start(run: Callable[[], int], close: tuple[int, ...] = ()) -> int:
    """Fork a process that closes the descriptors `close`, leads a session of its own, runs `run` and exits
    with its status; returns its pid."""
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        for fd in close:
            os.close(fd)
        os.setsid()
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() == parent:  # else the service died before the line above
            code = run()
    except BaseException:  # noqa: BLE001 - whatever happened, the service reads the round's outcome file
        traceback.print_exc()
    finally:
        os._exit(code)


def session_members(session: int) -> list[int]:
    """The live processes of the session `session` (a zombie is dead: its parent has yet to reap it)."""
    return [int(pid) for pid in os.listdir("/proc") if pid.isdigit()
            and (fields := process_fields(pid)) is not None and int(fields[3]) == session and fields[0] != "Z"]


def end_session(session: int, leader_ticks: int | None) -> int:
    """Kill every process left in the round's session `session` (its leader started at `leader_ticks`) and
    wait until none is left; returns how many there were."""
    ticks = start_ticks(session)
    if ticks is not None and ticks != leader_ticks:
        return 0  # the number is another process's now: the round's session is long gone
    ended = set()
    while members := session_members(session):
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
                ended.add(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    return len(ended)
