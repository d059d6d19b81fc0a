"""A student's submission, graded from outside the student's process.

`Submission(folder)` prepares a scratch folder for one student:

    scratch/grader/   judge.py and child.py, copied from this trusted package
    scratch/work/     the student's notebooks, with every read-only cell
                      (set-up, demonstrations, checks) restored from source/

and starts one child process (child.py) in a confined world of its own
(`sandbox.start`: the course absent, no network, its own PID namespace, limits),
which runs the student's answer cells there. Where the machine allows no
confinement, `Submission` raises `sandbox.NoConfinement` before any student
code runs, unless the caller accepts grading unconfined (`confine`). `outcome(name, case)` sends the
case's inputs (never its expected value) down the child's stdin, the child
answers with plain data on its stdout, and the comparison happens in this process. A call that runs past
its time limit, or code that kills the child, is reported as such; a fresh
child takes over, and an answer that timed out is not called again. While an
answer runs, this process answers its calls to the exercises it is built on
with the reference's values (judge.BUILT_ON; see child.py).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cached_property
from pathlib import Path

import nbformat
import numpy as np
from nbgrader.utils import compute_checksum

from autograder.answer_key import reference_of
from autograder.judge import BUILT_ON, WALL_FACTOR, from_line, plain, to_line
from autograder import sandbox
from autograder.sandbox import Limits

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCE = ROOT / "source" / "attention"
# The files of the release a submission may hold besides notebooks; copied from source/, never from the student.
SUPPORT = ("judge.py", "workbook.py", "worked_example.npz")
MAX_REPLY_BYTES = 256 << 20
# A stand-in computes the reference here, in the grader, on inputs the student's code chose:
# it refuses inputs that could make that costly (any array, or the grid of rows of two arrays).
MAX_STAND_IN_ELEMENTS = 1 << 22
HIDDEN_TESTS = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.DOTALL)


def read_notebook(path: Path) -> dict:
    """The notebook's JSON, or ValueError saying in plain words why it cannot be read."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"notebook unreadable: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"notebook unreadable: not valid JSON at line {e.lineno}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError("notebook unreadable: no list of cells")
    return nb


def _grade_id(cell) -> str | None:
    meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
    return meta.get("grade_id") if isinstance(meta, dict) else None


STUB = "raise NotStarted()"


def restore_locked_cells(student: dict, source: dict, answers_only: bool = False) -> dict:
    """The source notebook with the student's answers in its answer cells.

    Everything read-only comes from the source, whatever the student did to it
    (edited, deleted, retyped, duplicated, metadata changed). An answer cell
    the student deleted becomes the stub, never the source's solution. Code
    cells of the student's own (no nbgrader metadata: helpers, the free
    prompt cell) are kept, each before the nbgrader cell it came before.
    answers_only: keep only set-up, answer and the student's own code cells (what grading runs).
    """
    answers = {}
    for cell in student["cells"]:
        gid = _grade_id(cell)
        if gid and cell.get("cell_type") == "code" and gid not in answers:
            answers[gid] = cell.get("source", "")
    own = _own_cells(student)
    cells = []
    for cell in source["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id", "")
        cells += own.pop(gid, []) if gid else []
        if not meta and cell.get("cell_type") == "code":
            continue  # a free cell: the student's copy of it is among their own
        if meta.get("solution"):
            cell = {**cell, "source": answers.get(gid, STUB)}
        elif answers_only and not gid.startswith("setup_"):
            continue
        cells.append(cell)
    return {**source, "cells": cells + [c for rest in own.values() for c in rest]}


def _own_cells(student: dict) -> dict[str | None, list[dict]]:
    """The student's code cells without nbgrader metadata, as clean cells, by the
    grade_id of the nbgrader cell that follows each (None: none follows)."""
    own: dict[str | None, list[dict]] = {}
    pending: list[dict] = []
    for cell in student["cells"]:
        if not isinstance(cell, dict):
            continue
        if isinstance(cell.get("metadata"), dict) and "nbgrader" in cell["metadata"]:
            if pending:
                own.setdefault(_grade_id(cell), []).extend(pending)
                pending = []
            continue
        if cell.get("cell_type") == "code":
            number = sum(map(len, own.values())) + len(pending)
            pending.append({"cell_type": "code", "id": f"own-{number}", "metadata": {}, "source": _text(cell),
                            "outputs": [], "execution_count": None})
    if pending:
        own.setdefault(None, []).extend(pending)
    return own


def _text(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def _as_released(cell: dict) -> str:
    """A cell's text as the student received it: hidden tests removed."""
    return HIDDEN_TESTS.sub("", _text(cell)).strip()


def wrong_notebook(student: dict, source: dict) -> str | None:
    """Why `student` is not this assignment's notebook at all, or None."""
    theirs = {_grade_id(c) for c in student["cells"]} - {None}
    ours = {_grade_id(c) for c in source["cells"]} - {None}
    if student["cells"] and not theirs & ours:
        found = ", ".join(sorted(theirs)[:4]) or "no nbgrader cells"
        return f"wrong notebook: it has none of this notebook's exercises (it has {found})"
    answers = {c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    renamed = sorted(g for g in theirs - ours if g and not g.startswith("cell-"))
    if renamed and not answers & theirs:
        return f"wrong notebook: its exercises are renamed ({', '.join(renamed[:4])})"
    return None


def tampering(student: dict, source: dict) -> list[str]:
    """What the student did to the read-only cells of one notebook, in words."""
    found = []
    by_id: dict[str, list] = {}
    for cell in student["cells"]:
        if _grade_id(cell):
            by_id.setdefault(_grade_id(cell), []).append(cell)
    for cell in source["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        gid = meta.get("grade_id")
        if not gid:
            continue
        copies = by_id.get(gid, [])
        if meta.get("solution"):
            if copies and _metadata_changed(copies[0], meta):
                found.append(f"{gid} metadata changed")
            continue
        if not copies:
            found.append(f"{gid} deleted")
            continue
        if len(copies) > 1:
            found.append(f"{gid} duplicated")
        theirs = copies[0]
        before = len(found)
        if theirs.get("cell_type") != cell["cell_type"]:
            found.append(f"{gid} retyped as {theirs.get('cell_type')}")
        elif _as_released(theirs) != _as_released(cell):
            found.append(f"{gid} edited")
        if _metadata_changed(theirs, meta):
            found.append(f"{gid} metadata changed")
        if len(found) == before and not _checksum_holds(theirs):
            found.append(f"{gid} checksum changed")
    return found


def _metadata_changed(theirs: dict, meta: dict) -> bool:
    """Does the student's cell say otherwise than the source's nbgrader metadata `meta` on how it is graded?"""
    their_meta = theirs.get("metadata", {}).get("nbgrader", {})
    return any(their_meta.get(k) != meta.get(k) for k in ("grade", "solution", "locked", "points"))


def _checksum_holds(cell: dict) -> bool:
    """Does a cell's nbgrader checksum (if it carries one, as released cells do) match the cell?"""
    stored = cell.get("metadata", {}).get("nbgrader", {}).get("checksum")
    if stored is None:
        return True
    try:
        return compute_checksum(nbformat.from_dict({**cell, "source": _text(cell)})) == stored
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def _status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def _reset_peak(pid: int) -> int:
    """Reset a process's peak resident memory; returns its resident memory now."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
    return _status_bytes(pid, "VmRSS")


def _peak_resident(pid: int) -> int:
    return _status_bytes(pid, "VmHWM")


def stand_in_reply(message: dict, allowed) -> dict:
    """The reference's answer to a stand-in's call: {"value": ...} or {"error": (type name, text)}."""
    name, args, kwargs = message.get("call"), message.get("args"), message.get("kwargs")
    if name not in allowed or not isinstance(args, list) or not isinstance(kwargs, dict):
        return {"error": ("RuntimeError", f"no stand-in for {name!r} while this answer is graded")}
    arrays = [a for a in [*args, *kwargs.values()] if isinstance(a, np.ndarray)]
    rows = sorted((a.size // max(1, a.shape[-1]) for a in arrays if a.ndim >= 2), reverse=True)
    if any(a.size > MAX_STAND_IN_ELEMENTS or a.dtype.kind not in "biuf" for a in arrays) or \
            (len(rows) >= 2 and rows[0] * rows[1] > MAX_STAND_IN_ELEMENTS * 4):
        return {"error": ("ValueError", f"{name}: inputs too large or not numbers for the reference standing in "
                                        "for your function while this answer is graded")}
    try:
        with np.errstate(all="ignore"):
            return {"value": plain(reference_of(name)(*args, **kwargs))}
    except Exception as e:
        return {"error": (type(e).__name__, str(e)[:500])}


class Submission:
    def __init__(self, folder, source: Path = SOURCE, seconds_per_call: float = 10.0, limits: Limits = Limits(),
                 confine: str = sandbox.REQUIRED):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no submission folder {self.folder}")
        # Known before anything is copied: a machine without confinement raises NoConfinement here.
        self.confinement = sandbox.confinement(confine)
        self.source = Path(source)
        self.seconds_per_call = seconds_per_call
        self.limits = limits
        self.problems: dict[str, str] = {}  # notebook → why it could not be graded
        self.tampering: list[str] = []      # read-only cells changed by the student, restored for grading
        self._scratch = Path(tempfile.mkdtemp(prefix="attention-grading-"))
        self.workdir = self._scratch / "work"
        self.workdir.mkdir()
        (self._scratch / "grader").mkdir()
        for name in ("judge.py", "child.py"):
            shutil.copyfile(HERE / name, self._scratch / "grader" / name)
        shutil.copytree(HERE / "judge", self._scratch / "grader" / "judge")  # built_on.json, which judge.py reads
        for name in SUPPORT:
            shutil.copyfile(self.source / name, self.workdir / name)
        shutil.copytree(HERE / "judge", self.workdir / "judge")
        self._prepare_notebooks()
        self._child = None
        self._child_pid: int | None = None
        self._pending = b""
        self._stopped: dict[str, tuple[str, str]] = {}  # answer → (exception name, why) of its last call

    def _prepare_notebooks(self) -> None:
        for source_path in sorted(self.source.glob("*.ipynb")):
            source = json.loads(source_path.read_text())
            student_path = self.folder / source_path.name
            if not student_path.exists():
                self.problems[source_path.name] = "notebook missing"
                student = {"cells": []}
            else:
                try:
                    student = read_notebook(student_path)
                except ValueError as e:
                    self.problems[source_path.name] = str(e)
                    student = {"cells": []}
            wrong = wrong_notebook(student, source)
            if wrong:
                self.problems[source_path.name] = wrong
                student = {"cells": []}
            if source_path.name not in self.problems:
                self.tampering += [f"{source_path.name}: {t}" for t in tampering(student, source)]
            restored = restore_locked_cells(student, source, answers_only=True)
            (self.workdir / source_path.name).write_text(json.dumps(restored))

    @cached_property
    def notebook_of(self) -> dict[str, str]:
        """Answer name (answer cell id) → the notebook that asks for it."""
        where = {}
        for path in sorted(self.source.glob("*.ipynb")):
            for cell in json.loads(path.read_text())["cells"]:
                if cell["metadata"].get("nbgrader", {}).get("solution"):
                    where[_grade_id(cell)] = path.name
        return where

    def _start(self) -> subprocess.Popen:
        grader = self._scratch / "grader"
        env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "MPLBACKEND": "Agg", "HOME": str(self.workdir)}
        self._child_pid = None
        world = sandbox.World(self.hidden_roots, Path(sys.prefix), Path(sys.base_prefix), self._scratch)
        return sandbox.start(
            [sys.executable, "-I", str(grader / "child.py"), str(grader / "judge.py"), str(self.workdir),
             str(self.seconds_per_call)], world, self.limits, self.confinement,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.workdir,
            env=env, text=False, pass_fds=())

    def _measured_pid(self) -> int:
        """The child's own process id, as the grader sees it (under the PID namespace's init)."""
        deadline = time.monotonic() + 10
        while self._child_pid is None:
            try:
                self._child_pid = sandbox.child_pid(self._child, self.confinement)
            except LookupError:
                if time.monotonic() > deadline or self._child.poll() is not None:
                    raise
                time.sleep(0.005)  # the init has not started it yet
        return self._child_pid

    @property
    def hidden_roots(self) -> tuple[Path, ...]:
        """Folders that hold course files: this kit, the course being graded, and
        the folder around the Python environment (a kit's .venv sits in the kit)."""
        roots = [ROOT, self.source.resolve().parent.parent]
        if sys.prefix != sys.base_prefix:
            roots.append(Path(sys.prefix).resolve().parent)
        return tuple(dict.fromkeys(roots))

    def outcome(self, name: str, case: dict) -> tuple:
        """What the student's answer `name` gives on `case` (see judge.call)."""
        notebook = self.notebook_of.get(name)
        if notebook is None:
            return "raised", "LookupError", f"this assignment has no answer called {name!r}"
        if notebook in self.problems:
            return "not started", f"{notebook}: {self.problems[notebook]}"
        if name in self._stopped:  # it timed out or ended the process once: not called again
            kind, why = self._stopped[name]
            return "raised", kind, f"{why} (on an earlier case; not called again)"
        if self._child is None or self._child.poll() is not None:
            self._child, self._pending = self._start(), b""
        request = to_line({"args": case.get("args"), "kwargs": case.get("kwargs", {})})
        measured = "memory_limit_bytes" in case
        if measured:
            resident_before = _reset_peak(self._measured_pid())
        seconds = case.get("seconds", self.seconds_per_call)
        # A stand-in's work would not count in the child's memory: none where memory is measured.
        stand_ins = () if measured else BUILT_ON.get(name, ())
        try:
            self._send(json.dumps({"notebook": notebook, "answer": name, "seconds": seconds,
                                   "request": request, "stand_ins": list(stand_ins)}).encode())
        except BrokenPipeError:
            return self._lost(name)
        # Loading a notebook runs its cells, each with its own time limit, so the first call may take longer.
        # The child stops a call itself (CPU time, or WALL_FACTOR times that on the clock); this is the backstop.
        deadline = time.monotonic() + seconds * WALL_FACTOR + self.seconds_per_call * 3
        while True:
            line = self._read_line(deadline)
            if line is None:
                self._stop()
                self._stopped[name] = ("TimeoutError", f"did not finish within {seconds * WALL_FACTOR:g} s "
                                                       "(an endless loop that outlasts its time limit?)")
                return "raised", *self._stopped[name]
            if not line:
                return self._lost(name)
            try:
                message = from_line(line)
                if "call" not in message:
                    outcome = message["outcome"]
                    break
            except Exception as e:
                return "raised", "UnreadableAnswer", f"the answer could not be read back ({type(e).__name__})"
            try:
                self._send(to_line(stand_in_reply(message, stand_ins)).encode())
            except BrokenPipeError:
                return self._lost(name)
        if measured and outcome[0] == "value":
            # Measured here, from outside: the child could lie about its own memory.
            outcome = ("value", outcome[1], max(0, _peak_resident(self._measured_pid()) - resident_before))
        if outcome[0] == "raised" and outcome[1] == "TimeoutError":
            self._stopped[name] = ("TimeoutError", outcome[2])
        return outcome

    def _send(self, line: bytes) -> None:
        self._child.stdin.write(line + b"\n")
        self._child.stdin.flush()

    def _read_line(self, deadline: float) -> bytes | None:
        """One reply line: bytes (b"" if the child ended), or None past the deadline.
        Read in chunks, so a child that writes half a line cannot block the grader."""
        stream = self._child.stdout
        while b"\n" not in self._pending:
            ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(stream.fileno(), 1 << 20)
            if not chunk:
                return b""
            self._pending += chunk
            if len(self._pending) > MAX_REPLY_BYTES:
                return b"unreadable"
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def _lost(self, name: str) -> tuple:
        code = sandbox.exit_code(self._child.wait(), self.confinement)
        self._child = None
        why = {-9: "killed (it used more memory or CPU time than allowed?)",
               -25: "stopped for writing a file over the size limit"}.get(code, f"exit code {code}")
        self._stopped[name] = ("ProcessEnded", f"your code ended the grading process ({why})")
        return "raised", *self._stopped[name]

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
