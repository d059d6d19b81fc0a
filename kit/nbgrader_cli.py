"""nbgrader's commands, run with this environment's tools on PATH (nbgrader calls
`alembic` to set up the gradebook): in a new process (`run`, or `command` and
`environment` for a process to watch), or in this one (`run_here`, as nbgrader's
own test suite does: no 2.5 s `import nbgrader.apps` per command, which is most
of a short command's time; `preload` imports it once in a process that forks
others to run commands, as the grading service does). The one way the kit, its
tests and its benchmarks run nbgrader."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def command(*args: str, python: str | Path = sys.executable) -> list[str]:
    """nbgrader's command line with `args`, run by `python` (another account's, for a test on a hub)."""
    return [str(python), "-m", "nbgrader", *args]


def environment(grading: str | None = None, **extra: str) -> dict[str, str]:
    """This process's environment, this Python's tools first on PATH, and `extra`
    variables; grading sets KIT_GRADING ("out-of-process", the kit, or "in-kernel",
    stock nbgrader)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    if grading:
        env["KIT_GRADING"] = grading
    return {**env, **extra}


def run(*args: str, cwd: Path, grading: str | None = None, env: dict[str, str] | None = None,
        **kwargs) -> subprocess.CompletedProcess:
    """One nbgrader command in a new process in folder `cwd` (`env`: variables to add);
    kwargs go to subprocess.run."""
    return subprocess.run(command(*args), cwd=cwd, env=environment(grading, **(env or {})), **kwargs)


class NbgraderFailed(RuntimeError):
    """An nbgrader command run here exited with an error; the message ends with its log."""


def excerpt(lines: list[str], keep: int = 40) -> list[str]:
    """The log lines that say why a command failed: the first error with what follows it (its traceback),
    then the last `keep` lines (nbgrader names the failed students at the end, their errors far above)."""
    first = next((i for i, line in enumerate(lines) if "| ERROR]" in line or line.startswith("Traceback")), None)
    if first is None or first >= len(lines) - keep:
        return lines[-keep:]
    return [*lines[first:first + keep], "…", *lines[max(first + keep, len(lines) - keep):]]


class _Lines(io.TextIOBase):
    """A text stream that hands every complete line to `on_line` and keeps them all."""

    def __init__(self, on_line: Callable[[str], None] | None):
        self.on_line, self.lines, self._partial = on_line, [], ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *done, self._partial = (self._partial + text).split("\n")
        for line in done:
            self.lines.append(line)
            if self.on_line:
                self.on_line(line)
        return len(text)


def preload() -> None:
    """Import what `run_here` runs, here and now: processes forked from this one start with it imported."""
    import nbgrader.apps  # noqa: F401


def run_here(*args: str, cwd: Path, grading: str | None = None,
             on_line: Callable[[str], None] | None = None) -> list[str]:
    """One nbgrader command in this process, in folder `cwd`; returns its log lines
    (on_line sees each as it is written). Raises NbgraderFailed when it fails.

    nbgrader's apps are singletons holding their configuration: each command gets
    fresh ones (`reset` clears them after), and this process's working folder,
    environment and import path are restored whatever the command changed.
    """
    from jupyter_core.application import NoStart
    from nbgrader.apps import NbGraderApp

    saved_env, saved_cwd, saved_path = os.environ.copy(), os.getcwd(), sys.path[:]
    log = _Lines(on_line)
    app = None
    command_env = environment(grading)  # made from this process's environment before it is replaced
    try:
        os.environ.clear()
        os.environ.update(command_env)
        os.chdir(cwd)
        with contextlib.redirect_stderr(log), contextlib.redirect_stdout(log):  # the app's log handler is made here
            app = NbGraderApp.instance()
            try:
                app.initialize(list(args))
                app.start()
                code = 0
            except NoStart:
                code = 0
            except SystemExit as e:
                code = e.code
    finally:
        if app is not None:
            app.reset()
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.path[:] = saved_path
    if code:
        raise NbgraderFailed(f"nbgrader {' '.join(args)} failed ({code}):\n" + "\n".join(excerpt(log.lines)))
    return log.lines
