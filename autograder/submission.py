"""A student's submission, graded from outside the student's process.

`Submission(folder)` prepares a scratch folder for one student:

    scratch/grader/   the judge/ folder and child.py, copied from this trusted package
    scratch/work/     the student's notebooks, with every read-only cell
                      (set-up, demonstrations, checks) restored from source/,
                      and the release's support files (its judge/ among them)

(both judge/ copies with bytecode compiled here, `with_bytecode`, so that the child compiles neither)

and starts one child process (child.py) in a confined world of its own
(`sandbox.start`: the course absent, no network, its own PID namespace, limits),
which runs the student's answer cells there. Where the machine allows no
confinement, `Submission` raises `sandbox.NoConfinement` before any student
code runs, unless the caller accepts grading unconfined (`confine`). `outcome(name, case)` sends the
case's inputs (never its expected value) down the child's stdin (one `judge.to_line` line), the child
answers with an `Outcome` as plain data on its stdout, and the comparison happens in this process. A call that runs past
its time limit, or code that kills the child, is reported as such; a fresh
child takes over, and an answer that timed out or sent a reply past reading is not called again. While an
answer runs, this process answers its calls to the exercises it is built on
with the reference's values (the registry's `built_on`; see child.py). What is done to
the notebooks themselves (reading, restoring, tampering) is autograder/handed_in.py.

The child's replies cost this process no more than their bounds
(autograder/bounded_pipe.py): every read and write stops at the case's
deadline, a reply is refused once it passes MAX_REPLY_BYTES, and a child that
sends what it cannot be trusted to mean (an unreadable reply, bytes nobody
asked for, from a process its code left behind) is ended, with every process
it started. All of a student's cases together get the grader's budget
(autograder/budget.py): once it is spent, the remaining cases fail saying so.
"""

from __future__ import annotations

import importlib.util
import marshal
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from autograder import sandbox
from autograder.answer_key import reference_of
from autograder.exercises import REGISTRY
from autograder.handed_in import restore_for_grading
from autograder.judge import WALL_FACTOR, Case, Outcome, from_line, outcome_from_wire, plain, to_line
from autograder.source_assignment import SourceAssignment
from autograder.bounded_pipe import BoundedReader, PastDeadline, TooLong, write_all
from autograder.budget import BUDGET_SPENT, GraderBudget, Spending
from autograder.sandbox import Limits

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCE = ROOT / "source" / "attention"
# The files and folders of the release a submission may hold besides notebooks; copied from source/,
# never from the student.
SUPPORT = ("judge", "workbook.py", "worked_example.npz")
NO_CACHES = shutil.ignore_patterns("__pycache__", "*.pyc")
MAX_REPLY_BYTES = 256 << 20
UNASKED = object()  # what _exchange returns for a message that answers no request of this call
# A stand-in computes the reference here, in the grader, on inputs the student's code chose:
# it refuses inputs that could make that costly (any array, or the grid of rows of two arrays).
MAX_STAND_IN_ELEMENTS = 1 << 22


@lru_cache(maxsize=64)
def _bytecode(source: bytes) -> bytes:
    """A module's .pyc, checked against its source's hash when imported (PEP 552); compiled once per process.
    (The import fixes each code object's file name to the module's own path.)"""
    code = compile(source, "<judge>", "exec", dont_inherit=True)
    return importlib.util.MAGIC_NUMBER + (0b11).to_bytes(4, "little") + importlib.util.source_hash(source) + \
        marshal.dumps(code)


def with_bytecode(folder: Path) -> None:
    """Write beside each module of `folder` (a copy of the trusted judge) the bytecode the grading child,
    the same Python, imports instead of compiling the module again (some 30 ms a child, per folder)."""
    cache = folder / "__pycache__"
    cache.mkdir(exist_ok=True)
    for module in folder.glob("*.py"):
        (cache / f"{module.stem}.{sys.implementation.cache_tag}.pyc").write_bytes(_bytecode(module.read_bytes()))


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
                 confine: str = sandbox.REQUIRED, budget: GraderBudget = GraderBudget()):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no submission folder {self.folder}")
        # Known before anything is copied: a machine without confinement raises NoConfinement here.
        self.confinement = sandbox.confinement(confine)
        self.spending = Spending(budget)  # counted from here: copying and restoring the notebooks cost too
        self.source = Path(source)
        self.seconds_per_call = seconds_per_call
        self.limits = limits
        self._scratch = Path(tempfile.mkdtemp(prefix="attention-grading-"))
        self.workdir = self._scratch / "work"
        self.workdir.mkdir()
        (self._scratch / "grader").mkdir()
        shutil.copytree(HERE / "judge", self._scratch / "grader" / "judge", ignore=NO_CACHES)
        shutil.copyfile(HERE / "child.py", self._scratch / "grader" / "child.py")
        for name in SUPPORT:
            if (self.source / name).is_dir():
                shutil.copytree(self.source / name, self.workdir / name, ignore=NO_CACHES)
            else:
                shutil.copyfile(self.source / name, self.workdir / name)
        for judge in (self._scratch / "grader" / "judge", self.workdir / "judge"):
            with_bytecode(judge)
        self.problems, self.tampering = restore_for_grading(self.folder, self.source, self.workdir)
        self._child: subprocess.Popen | None = None
        self._reader: BoundedReader | None = None
        self._child_pid: int | None = None
        self._stopped: dict[str, tuple[str, str]] = {}  # answer → (exception name, why) of its last call

    @cached_property
    def notebook_of(self) -> dict[str, str]:
        """Answer name (answer cell id) → the notebook that asks for it."""
        return SourceAssignment.of(self.source).answer_notebooks

    def _start(self) -> None:
        """A fresh child, and a reader of its replies."""
        grader = self._scratch / "grader"
        env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "MPLBACKEND": "Agg", "HOME": str(self.workdir)}
        self._child_pid = None
        world = sandbox.World(self.hidden_roots, Path(sys.prefix), Path(sys.base_prefix), self._scratch)
        self._child = sandbox.start(
            [sys.executable, "-I", str(grader / "child.py"), str(grader / "judge"), str(self.workdir),
             str(self.seconds_per_call)], world, self.limits, self.confinement,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.workdir,
            env=env, text=False, pass_fds=())
        self._reader = BoundedReader(self._child.stdout.fileno(), MAX_REPLY_BYTES)

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

    def outcome(self, name: str, case: Case) -> Outcome:
        """What the student's answer `name` gives on `case` (see judge.call)."""
        notebook = self.notebook_of.get(name)
        if notebook is None:
            return Outcome.raising("LookupError", f"this assignment has no answer called {name!r}")
        if notebook in self.problems:
            return Outcome.unstarted(f"{notebook}: {self.problems[notebook]}")
        if name in self._stopped:  # it timed out or ended the process once: not called again
            kind, why = self._stopped[name]
            return Outcome.raising(kind, f"{why} (on an earlier case; not called again)")
        if self.spending.spent():
            return self._over_budget()
        if self._child is not None and (self._child.poll() is not None or self._reader.pending()):
            self._stop()  # it ended, or it wrote unasked (a process its code left behind): a fresh child
        if self._child is None:
            self._start()
        measured = "memory_limit_bytes" in case
        seconds = case.get("seconds", self.seconds_per_call)
        # A stand-in's work would not count in the child's memory: none where memory is measured.
        stand_ins = () if measured or name not in REGISTRY else REGISTRY[name].built_on  # the registry's, now
        nonce = secrets.token_hex(8)  # the child echoes it: an outcome without it answers no request of this call
        request = to_line({"notebook": notebook, "answer": name, "seconds": seconds, "stand_ins": list(stand_ins),
                           "args": case.get("args"), "kwargs": case.get("kwargs", {}), "nonce": nonce}).encode()
        if measured:
            resident_before = _reset_peak(self._measured_pid())
        # Loading a notebook runs its cells, each with its own time limit, so the first call may take longer.
        # The child stops a call itself (CPU time, or WALL_FACTOR times that on the clock); this is the backstop.
        outcome = self._exchange(name, request, stand_ins, self._deadline(seconds), seconds, nonce)
        if outcome is UNASKED:  # a process an earlier answer left behind wrote: it ended with that child
            self._start()
            if measured:
                resident_before = _reset_peak(self._measured_pid())
            outcome = self._exchange(name, request, stand_ins, self._deadline(seconds), seconds, nonce)
            if outcome is UNASKED:  # this answer itself writes where only the grading child may
                outcome = self._stopped_for(name, "UnreadableAnswer", "a message came that answers no request of "
                                                                      "the grader: your code wrote to its pipe")
        if measured and outcome.has_value:
            # Measured here, from outside: the child could lie about its own memory.
            outcome = Outcome.returned(outcome.value, max(0, _peak_resident(self._measured_pid()) - resident_before))
        if outcome.timed_out:
            self._stopped[name] = ("TimeoutError", outcome.message)
        return outcome

    def _deadline(self, seconds: float) -> float:
        """When the grader gives up a call of `seconds` (the child stops it itself before; this is the backstop)."""
        return self.spending.deadline(time.monotonic() + seconds * WALL_FACTOR + self.seconds_per_call * 3)

    def _exchange(self, name: str, request: bytes, stand_ins, deadline: float, seconds: float, nonce: str):
        """Send `request`, answer the child's stand-in calls, and return the outcome it sends back (or
        what stopped it: the deadline, a reply over the limit or unreadable, the budget, the child's end);
        UNASKED, with the child ended, when an outcome does not carry the request's `nonce`."""
        while True:
            try:
                self._send(request, deadline)
                line = self._reader.line(deadline)
            except BrokenPipeError:
                return self._lost(name, deadline)
            except PastDeadline:
                if self.spending.spent():
                    return self._over_budget()
                return self._stopped_for(name, "TimeoutError", f"did not finish within {seconds * WALL_FACTOR:g} s "
                                                               "(an endless loop that outlasts its time limit?)")
            except TooLong:  # read again, it would cost as much again
                return self._stopped_for(name, "UnreadableAnswer",
                                         f"the answer's reply passed {MAX_REPLY_BYTES >> 20} MiB before it ended")
            if line is None:
                return self._lost(name, deadline)
            try:
                message = from_line(line)
                asked = message.get("nonce") == nonce
                if not asked and "call" not in message:  # an outcome nobody asked for: a leftover process wrote it
                    self._stop()
                    return UNASKED
                if "call" not in message:
                    return outcome_from_wire(message["outcome"])
            except Exception as e:  # what it sends next cannot be trusted, and called again it would cost as much again
                return self._stopped_for(name, "UnreadableAnswer",
                                         f"the answer could not be read back ({type(e).__name__})")
            if self.spending.spent():
                return self._over_budget()
            # A call without this request's token (a stand-in kept from an earlier answer) is refused.
            request = to_line(stand_in_reply(message, stand_ins if asked else ())).encode()

    def _stopped_for(self, name: str, kind: str, why: str) -> Outcome:
        """End the child, and fail this case and every later one of answer `name` with `why`."""
        self._stop()
        self._stopped[name] = (kind, why)
        return Outcome.raising(kind, why)

    def _over_budget(self) -> Outcome:
        self._stop()  # its processes end now, not with the last case
        return Outcome.raising(BUDGET_SPENT, self.spending.message)

    def _send(self, line: bytes, deadline: float) -> None:
        """Write a line to the child, never blocking past the deadline (a child that does not read)."""
        write_all(self._child.stdin.fileno(), line + b"\n", deadline)

    def _lost(self, name: str, deadline: float) -> Outcome:
        try:  # it closed its end: it is ending, or has ended; it gets until the case's deadline to end
            status = self._child.wait(timeout=max(0.0, deadline - time.monotonic()) + 1)
        except subprocess.TimeoutExpired:
            return self._stopped_for(name, "ProcessEnded", "your code closed the grader's pipes")
        code = sandbox.exit_code(status, self.confinement)
        why = {-9: "killed (it used more memory or CPU time than allowed?)",
               -25: "stopped for writing a file over the size limit"}.get(code, f"exit code {code}")
        return self._stopped_for(name, "ProcessEnded", f"your code ended the grading process ({why})")

    def _stop(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            for pipe in (self._child.stdin, self._child.stdout):
                try:
                    pipe.close()
                except OSError:  # the unwritten rest of a request: dropped
                    pass
            self._child = self._reader = None

    def close(self) -> None:
        self._stop()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
