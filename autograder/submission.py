"""A student's submission, graded from outside the student's process.

`Submission(folder)` copies the submission's notebooks into a scratch folder
and starts one child process (autograder/child.py) that runs the student's
answer cells there. `outcome(name, case)` sends the case's inputs to the
child and reads back plain data; the comparison happens in this process.
A call that runs past its time limit or kills the child is reported as such,
and a fresh child takes over for the next call.
"""

from __future__ import annotations

import json
import select
import shutil
import subprocess
import sys
import tempfile
from functools import cached_property
from pathlib import Path

from autograder.judge import load_cases, save_cases

HERE = Path(__file__).resolve().parent
# The files of the release that a submission may contain; nothing else is copied.
COPIED = ("*.ipynb", "judge.py", "workbook.py", "worked_example.npz")


class Submission:
    def __init__(self, folder, seconds_per_call: float = 20.0):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no submission folder {self.folder}")
        self.seconds_per_call = seconds_per_call
        self._scratch = Path(tempfile.mkdtemp(prefix="attention-grading-"))
        self.workdir = self._scratch / "work"
        self.workdir.mkdir()
        for pattern in COPIED:
            for path in self.folder.glob(pattern):
                shutil.copyfile(path, self.workdir / path.name)
        self._child = None
        self._calls = 0

    @cached_property
    def notebook_of(self) -> dict[str, str]:
        """Answer name (solution cell id) → the notebook that holds it."""
        where = {}
        for path in sorted(self.workdir.glob("*.ipynb")):
            try:
                cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                continue
            for cell in cells:
                meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
                if meta.get("solution"):
                    where.setdefault(meta.get("grade_id"), path.name)
        return where

    def _start(self) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-I", str(HERE / "child.py"), str(HERE / "judge.py"),
                                 str(self.workdir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=self.workdir, text=True)

    def outcome(self, name: str, case: dict) -> tuple:
        """What the student's answer `name` gives on `case` (see judge.call)."""
        notebook = self.notebook_of.get(name)
        if notebook is None:
            return "raised", "LookupError", f"no notebook of this submission has an answer cell {name!r}"
        if self._child is None or self._child.poll() is not None:
            self._child = self._start()
        self._calls += 1
        request, reply = self._scratch / f"request{self._calls}.npz", self.workdir / f"reply{self._calls}.npz"
        save_cases(request, [{"args": case.get("args"), "kwargs": case.get("kwargs", {})}])
        try:
            self._child.stdin.write(json.dumps({"notebook": notebook, "answer": name, "request": str(request),
                                                "reply": str(reply)}) + "\n")
            self._child.stdin.flush()
        except BrokenPipeError:
            return self._lost()
        ready, _, _ = select.select([self._child.stdout], [], [], self.seconds_per_call)
        if not ready:
            self._stop()
            return "raised", "TimeoutError", f"did not finish within {self.seconds_per_call:g} s (an endless loop?)"
        if self._child.stdout.readline() != "done\n":
            return self._lost()
        try:
            return load_cases(reply)[0]["outcome"]
        except Exception as e:
            return "raised", "UnreadableAnswer", f"the answer could not be read back ({type(e).__name__})"
        finally:
            reply.unlink(missing_ok=True)
            request.unlink(missing_ok=True)

    def _lost(self) -> tuple:
        code = self._child.wait()
        self._child = None
        return "raised", "ProcessEnded", f"your code ended the grading process (exit code {code})"

    def _stop(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None

    def close(self) -> None:
        self._stop()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
