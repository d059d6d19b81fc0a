"""The grading service (kit/grading_service/) run by a test or a benchmark: started in a course as its
instructor's account (as the hub starts it), killed with SIGKILL, stopped, and its journal and log read."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from kit.course import course
from kit.grading_service.journal import journal_path
from kit.grading_service.service import service_folder
from tests.shared.accounts import command_as

WAIT = 1200  # seconds: a loaded two-core machine grades a burst in minutes


def with_service_policy(toml: str, exchange: str | Path | None = None, **policy: object) -> str:
    """course.toml's text with `policy`'s keys of its [service] table set (TOML values: True, 0, 1.5), and
    `exchange` as its [exchange] root if given."""
    head, table, rest = re.split(r"(?m)^(\[service\]\n)", toml, maxsplit=1)
    body, _, after = rest.partition("\n[")
    for key, value in policy.items():
        text = str(value).lower() if isinstance(value, bool) else repr(value)
        body, found = re.subn(rf"(?m)^{key} = .*$", f"{key} = {text}", body)
        assert found == 1, f"course.toml [service] has no {key}"
    toml = head + table + body + ("\n[" + after if after else "")
    if exchange is not None:
        toml = toml.replace('\nroot = ""\n', f'\nroot = "{exchange}"\n', 1)
    return toml


class RunningService:
    """`python -m kit.grading_service` in `course`, as `account` (None: this process's own account)."""

    def __init__(self, course_folder: Path, account: str | None = None, python: str | Path = "python"):
        self.course, self.account, self.python = course_folder, account, python
        self.assignment = course(course_folder).assignment
        self.process: subprocess.Popen | None = None
        self.last_pid: int | None = None

    def start(self) -> int:
        """Start the service and wait until it holds the course's lock; returns its pid."""
        command = ["python" if self.account else self.python, "-m", "kit.grading_service"]
        if self.account:
            command = command_as(self.account, *command)
        self.process = subprocess.Popen(command, cwd=self.course, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            pid = self._pid_in_lock()
            if pid and pid != self.last_pid and Path(f"/proc/{pid}").exists():
                self.last_pid = pid
                return pid
            if self.process.poll() is not None:
                raise RuntimeError(f"the grading service exited ({self.process.returncode}):\n{self.log()[-3000:]}")
            time.sleep(0.2)
        raise TimeoutError("the grading service did not start")

    def _pid_in_lock(self) -> int | None:
        try:
            return int((service_folder(self.course) / "lock").read_text().strip() or 0) or None
        except (OSError, ValueError):
            return None

    def kill(self) -> None:
        """SIGKILL the service's own process, as a crash would end it (its round's processes are left to die
        or linger, as they would)."""
        os.kill(self.last_pid, signal.SIGKILL)
        self.process.wait(timeout=60)

    def stop(self) -> None:
        """Stop it as the hub does (SIGTERM), and wait until it has."""
        if self.process and self.process.poll() is None:
            os.kill(self.last_pid, signal.SIGTERM)
            self.process.wait(timeout=120)

    def log(self) -> str:
        path = service_folder(self.course) / f"{self.assignment}.log"
        return path.read_text() if path.exists() else ""

    def hand_ins(self) -> list[dict]:
        """Every hand-in the journal holds, as a dict of its columns, in order of arrival."""
        path = journal_path(self.course, self.assignment)
        if not path.exists():
            return []
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        try:
            return [dict(row) for row in db.execute("SELECT * FROM hand_ins ORDER BY seq")]
        finally:
            db.close()

    def wait_until(self, done, what: str, timeout: float = WAIT) -> None:
        """Wait until done(hand-ins) holds, with the service still running."""
        deadline = time.monotonic() + timeout
        while not done(self.hand_ins()):
            if self.process.poll() is not None:
                raise RuntimeError(f"the grading service exited ({self.process.returncode}):\n{self.log()[-3000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} within {timeout} s:\n{self.log()[-3000:]}")
            time.sleep(0.5)
