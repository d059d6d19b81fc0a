"""A student's submission, graded from outside the student's process.

`Submission(folder)` prepares a scratch folder for one student (its layout:
autograder/grading_child.py): the judge and child.py, copied from this trusted
package, and the student's notebooks with every read-only cell (set-up,
demonstrations, checks) restored from source/, beside the release's support
files (its judge/ among them) and the modules the student handed in beside
the notebooks (student_modules.py); both judge/ copies with bytecode compiled
here (`with_bytecode`), so that the child compiles neither. It starts one child
process (`GradingChild`, child.py) in a confined world of its own
(`sandbox.start`: the course absent, no network, its own PID namespace,
limits, a work folder of its own that nothing outlives), which runs the
student's answer cells there. Where the machine allows no confinement,
`Submission` raises `sandbox.NoConfinement` before any student code runs,
unless the caller accepts grading unconfined (`confine`).

`outcomes(name, cases)` sends the cases' inputs (never their expected values)
down the child's stdin in one request (one `judge.frame_of` frame), the child
answers each case with an `Outcome` as plain data on its stdout as it ends, and
the comparison happens in this process; `outcome(name, case)` asks one case,
`in_turn` runs the cases a caller will ask for, in its order. Every case has
its own deadline, and an answer that runs past its time is run on no later
case. A case whose memory is measured runs in a child that has run no
other notebook's code, measured from outside since before any student code ran
(`GradingChild.peak_since_ready`; an earlier case's peak forgotten, and the
child started anew when what it still holds takes more than half of this
case's cap): the child that serves every notebook while it has run only that
notebook's (grade.py asks for those cases first), else one of its own. A call that runs past its time limit, or
code that kills the child, is reported as such; a fresh child takes over,
and an answer that timed out or sent a reply past reading is not called
again. While an answer runs, its calls to the exercises it is built on (the
registry's `built_on`; see child.py) are answered with the reference's values,
computed in a bounded process of the grader's (autograder/stand_in_server.py).
What is done to the notebooks themselves (reading, restoring, tampering) is
autograder/handed_in.py.

The child's replies cost this process no more than their bounds
(autograder/bounded_pipe.py): every read and write stops at the case's
deadline, a reply is refused once it passes the budget's `reply_bytes`, and a
child that sends what it cannot be trusted to mean (an unreadable reply, bytes
nobody asked for, from a process its code left behind) is ended, with every
process it started. All of a student's cases together get the grader's budget
(autograder/budget.py): once it is spent, the remaining cases fail saying so.

One job, kept whole past 250 lines: the grader's side of the conversation with its confined children
(start, ask, answer their stand-in calls, bound, stop), whose steps share one state, the running children.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Callable, NamedTuple

from autograder import sandbox, scratch, stand_in_server
from autograder.call_frames import call_in, header
from autograder.exercises import REGISTRY
from autograder.grading_child import GradingChild, remove_tree
from autograder.handed_in import restore_for_grading
from autograder.judge import WALL_FACTOR, Case, Outcome, frame_of, from_frame, outcome_from_wire
from autograder.judge.frames import FrameWithNonce
from autograder.source_assignment import SourceAssignment
from autograder.student_modules import copy_student_modules
from autograder.bounded_pipe import NotAFrame, PastDeadline, TooLong
from autograder.budget import BUDGET_SPENT, GraderBudget, Spending
from autograder.sandbox import Limits

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCE = ROOT / "source" / "attention"
# The files and folders of the release a submission may hold besides notebooks; copied from source/,
# never from the student.
SUPPORT = ("judge", "workbook.py", "worked_example.npz")
# What the child runs, from this trusted package: its program, its lock and the judge.
CHILD_FILES = ("child.py", "seccomp.py")
NO_CACHES = shutil.ignore_patterns("__pycache__", "*.pyc")
UNASKED = object()  # what _exchange returns for a message that answers no request of this call


class Unreadable(NamedTuple):
    """What _exchange returns for a frame it could not read: written by the answer, or garbled by a process an
    earlier answer left behind writing into the same pipe (its writes and the child's interleave)."""
    error: str  # the exception's name


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


SHARED = "shared"  # the key of the child that answers every case whose memory is not measured
_REQUESTS_KEPT = 4096
_requests: dict[tuple, tuple] = {}
_requests_lock = threading.Lock()


def _request(cases: tuple[Case, ...], notebook: str, name: str, seconds: float,
             stand_ins: tuple[str, ...]) -> FrameWithNonce:
    """The request for `cases` of answer `name` (their inputs, never their expected values), to be sent with a
    fresh nonce: the same for every student, so encoded once per process for the last _REQUESTS_KEPT requests
    (cases are never changed once built; each entry keeps its cases, so their ids name it while it is kept)."""
    key = (tuple(map(id, cases)), notebook, name, seconds, stand_ins)
    kept = _requests.get(key)
    if kept is None:
        kept = (cases, FrameWithNonce({"notebook": notebook, "answer": name, "stand_ins": list(stand_ins),
                                      "cases": [{"args": case.get("args"), "kwargs": case.get("kwargs", {}),
                                                 "seconds": case.get("seconds", seconds)} for case in cases]}))
        with _requests_lock:  # several students are graded at once, each in a thread
            while len(_requests) >= _REQUESTS_KEPT:
                del _requests[next(iter(_requests))]
            _requests[key] = kept
    return kept[1]


class Submission:
    def __init__(self, folder, source: Path = SOURCE, seconds_per_call: float = 10.0, limits: Limits = Limits(),
                 confine: str = sandbox.REQUIRED, budget: GraderBudget = GraderBudget()):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no submission folder {self.folder}")
        # Known before anything is copied: a machine without confinement raises NoConfinement here.
        self.confinement = sandbox.confinement(confine)
        self.spending = Spending(budget)  # counted from here: copying and restoring the notebooks cost too
        self.budget = budget
        self.source = Path(source)
        self.seconds_per_call = seconds_per_call
        self.limits = limits._replace(disk_bytes=budget.disk_bytes)
        self._scratch = scratch.make()  # and what killed graders left, removed (autograder/scratch.py)
        grader, self.prepared = self._scratch / "grader", self._scratch / "prepared"
        for folder in (grader, self.prepared, self._scratch / "work"):
            folder.mkdir()
        shutil.copytree(HERE / "judge", grader / "judge", ignore=NO_CACHES)
        for name in CHILD_FILES:
            shutil.copyfile(HERE / name, grader / name)
        for name in SUPPORT:
            if (self.source / name).is_dir():
                shutil.copytree(self.source / name, self.prepared / name, ignore=NO_CACHES)
            else:
                shutil.copyfile(self.source / name, self.prepared / name)
        for judge in (grader / "judge", self.prepared / "judge"):
            with_bytecode(judge)
        self.problems, self.tampering = restore_for_grading(self.folder, self.source, self.prepared)
        copy_student_modules(self.folder, self.source, self.prepared)  # importable as in JupyterLab (student_modules.py)
        # As root, every child of this student runs as one user of its own, who alone may read the scratch folder.
        confined_by_root = self.confinement != sandbox.UNCONFINED and os.geteuid() == 0
        self.user = sandbox.new_user() if confined_by_root else None
        sandbox.open_to(self._scratch, self.user)
        self._children: dict[str, GradingChild] = {}  # SHARED, or a notebook whose memory a child measures
        self.started: list[str] = []  # the key of every child started, in turn
        self._stopped: dict[str, tuple[str, str]] = {}  # answer → (exception name, why) of its last call

    @cached_property
    def notebook_of(self) -> dict[str, str]:
        """Answer name (answer cell id) → the notebook that asks for it."""
        return SourceAssignment.of(self.source).answer_notebooks

    @property
    def hidden_roots(self) -> tuple[Path, ...]:
        """Folders that hold course files: this kit, the course being graded, and
        the folder around the Python environment (a kit's .venv sits in the kit)."""
        roots = [ROOT, self.source.resolve().parent.parent]
        if sys.prefix != sys.base_prefix:
            roots.append(Path(sys.prefix).resolve().parent)
        return tuple(dict.fromkeys(roots))

    def _key_for(self, notebook: str, limit: int | None) -> str:
        """The child to ask a case of `notebook` capped at `limit` (None: not measured): the shared child,
        unless the case is measured and the shared child has run another notebook's code (what that code
        holds, or took before the case, would count or hide in its count): then a child of the notebook's
        own, which runs no other notebook's code. (grade.py asks for the measured notebook's cases first.)"""
        shared = self._children.get(SHARED)
        if limit is None or shared is None or shared.ended_or_spoke() or shared.notebooks <= {notebook}:
            return SHARED
        return notebook

    def _child_for(self, key: str, limit: int | None, notebook: str) -> GradingChild:
        """The running child for `key` (SHARED, or a notebook whose memory is measured), started anew when
        it ended or wrote unasked (a process its code left behind), or, measuring, when it cannot measure a
        case capped at `limit` (`_measures`); `notebook`, whose case it is asked, counted among those it ran."""
        child = self._children.get(key)
        if child is not None and (child.ended_or_spoke() or (limit is not None and not self._measures(child, limit))):
            self._stop(key)
            child = None
        if child is None:
            child = self._children[key] = GradingChild(self._scratch, self.hidden_roots, self.seconds_per_call,
                                                       self.limits, self.confinement, self.user,
                                                       self.budget.reply_bytes, None if key == SHARED else key)
            self.started.append(key)
        child.notebooks.add(notebook)
        return child

    def _measures(self, child: GradingChild, limit: int) -> bool:
        """Can a running child measure a case capped at `limit`? Its count is set back to what it holds now
        (an earlier case's peak forgotten), which may take at most half of the cap: what the notebook still
        holds counts in the case's peak, but must leave the case room of its own. Past that, the child is
        asked to give back what it no longer uses (`GradingChild.tidy`) and counted again. Where the count
        cannot be set back, it keeps an earlier case's peak, which may take at most half of the cap all the
        same."""
        if self._room_for(child, limit):
            return True
        return child.tidy(self.spending.deadline(time.monotonic() + self.seconds_per_call)) and \
            self._room_for(child, limit)

    @staticmethod
    def _room_for(child: GradingChild, limit: int) -> bool:
        """Does the child, its count set back to what it holds now, hold at most half of `limit`?"""
        child.forget_peak()
        return (child.peak_since_ready() or 0) <= limit // 2

    def _held_after(self, child: GradingChild) -> int | None:
        """What a child whose measured case went past its cap still holds once the call is over and it has given
        back what it no longer uses (`GradingChild.tidy`): what its notebook keeps, which the message names apart
        from the call's own memory; None where it cannot say."""
        if not child.tidy(self.spending.deadline(time.monotonic() + self.seconds_per_call)):
            return None
        return child.held_since_ready()

    def outcome(self, name: str, case: Case) -> Outcome:
        """What the student's answer `name` gives on `case` (see judge.call)."""
        return self.outcomes(name, [case])[0]

    def outcomes(self, name: str, cases: list[Case]) -> list[Outcome]:
        """`outcome(name, case)` of each of `cases`, run in turn: the cases whose memory is not measured
        asked in one request, the child replying to each as it ends; a measured case alone."""
        found: list[Outcome] = []
        while len(found) < len(cases):
            found += self._next_outcomes(name, cases[len(found):])
        return found

    def in_turn(self, name: str, cases: list[Case]) -> Callable[[Case], Outcome]:
        """`outcome(name, ·)` for a caller that asks for `cases` in this order, perhaps skipping some (grade.py):
        a case not run yet is run with the cases after it, up to the next measured one, in one request; a
        case asked out of that order is run alone."""
        planned, found, next_place = list(cases), {}, 0

        def outcome_for(case: Case) -> Outcome:
            nonlocal next_place
            place = next((i for i in range(next_place, len(planned)) if planned[i] is case), None)
            if place is None:
                return self.outcome(name, case)
            if place not in found:
                found.update(enumerate(self._next_outcomes(name, planned[place:]), place))
            next_place = place + 1
            return found[place]
        return outcome_for

    def _next_outcomes(self, name: str, cases: list[Case]) -> list[Outcome]:
        """The outcomes of the first of `cases` and of those after it up to the next measured one (`_asked`)."""
        unmeasured = next((i for i, case in enumerate(cases) if "memory_limit_bytes" in case), len(cases))
        return self._asked(name, cases[:unmeasured or 1])

    def _asked(self, name: str, cases: list[Case]) -> list[Outcome]:
        """The outcomes of `cases` of answer `name` (one request: a measured case alone), or of as many of the
        first of them as were run before something stopped the child (at least one)."""
        notebook = self.notebook_of.get(name)
        if notebook is None:
            return [Outcome.raising("LookupError", f"this assignment has no answer called {name!r}")]
        if notebook in self.problems:
            return [Outcome.unstarted(f"{notebook}: {self.problems[notebook]}")]
        if name in self._stopped:  # it timed out or ended the process once: not called again
            kind, why = self._stopped[name]
            return [Outcome.raising(kind, f"{why} (on an earlier case; not called again)")]
        if self.spending.spent():
            return [self._over_budget()]
        limit = cases[0].get("memory_limit_bytes")
        key = self._key_for(notebook, limit)
        # A stand-in's work would not count in the child's memory: none where memory is measured.
        stand_ins = () if limit is not None or name not in REGISTRY else REGISTRY[name].built_on
        nonce = secrets.token_hex(8)  # the child echoes it: an outcome without it answers no request of this call
        request = _request(tuple(cases), notebook, name, self.seconds_per_call, tuple(stand_ins)).frame(nonce)
        # Loading a notebook runs its cells, each with its own time limit, so the first call may take longer.
        # The child stops a call itself (CPU time, or WALL_FACTOR times that on the clock); this is the backstop.
        child = self._child_for(key, limit, notebook)
        found, end = self._exchange(key, name, request, stand_ins, cases, nonce)
        if not found and (end is UNASKED or isinstance(end, Unreadable)):
            # Perhaps a process an earlier answer left behind wrote: it ended with that child. Asked again.
            child = self._child_for(key, limit, notebook)
            found, end = self._exchange(key, name, request, stand_ins, cases, nonce)
            if not found and end is UNASKED:  # this answer itself writes where only the grading child may
                end = self._stopped_for(name, "UnreadableAnswer", "a message came that answers no request of "
                                                                  "the grader: your code wrote to its pipe")
            elif not found and isinstance(end, Unreadable):
                end = self._stopped_for(name, "UnreadableAnswer", f"the answer could not be read back ({end.error})")
        if isinstance(end, Outcome):
            found.append(end)
        if limit is not None and found[0].has_value:
            # Measured here, from outside: the child could lie about its own memory.
            found[0] = Outcome.returned(found[0].value, peak := child.peak_since_ready(),
                                        self._held_after(child) if peak is not None and peak > limit else None)
        if found[-1].timed_out:  # the child ran no later case of it (child.py)
            self._stopped[name] = ("TimeoutError", found[-1].message)
        return found

    def _deadline(self, seconds: float) -> float:
        """When the grader gives up a call of `seconds` (the child stops it itself before; this is the backstop)."""
        return self.spending.deadline(time.monotonic() + seconds * WALL_FACTOR + self.seconds_per_call * 3)

    def _exchange(self, key: str, name: str, request: bytes, stand_ins, cases: list[Case], nonce: str):
        """Send `request` to child `key`, answer its stand-in calls, and read the outcome of each of `cases` it
        sends back in turn, each by its own deadline. Returns (the outcomes read, what ended the exchange):
        None when nothing did or a case timed out (its outcome the last read); an Outcome for the next case
        (the deadline, a reply over the limit, the budget, the child's end); UNASKED, with the child ended,
        for an outcome that does not carry the request's `nonce` and the next case's place; Unreadable, with
        the child ended, for a frame that cannot be read."""
        child = self._children[key]
        found: list[Outcome] = []
        seconds = cases[0].get("seconds", self.seconds_per_call)
        deadline, outgoing = self._deadline(seconds), request
        while True:
            try:
                if outgoing:
                    child.send(outgoing, deadline)
                frame = child.reader.frame(deadline)
            except BrokenPipeError:
                return found, self._lost(key, name, deadline)
            except PastDeadline:
                if self.spending.spent():
                    return found, self._over_budget()
                return found, self._stopped_for(name, "TimeoutError", f"did not finish within "
                                                f"{seconds * WALL_FACTOR:g} s (an endless loop that outlasts its "
                                                "time limit?)")
            except TooLong:  # read again, it would cost as much again
                return found, self._stopped_for(name, "UnreadableAnswer", f"the answer's reply passed "
                                                f"{self.budget.reply_bytes >> 20} MiB before it ended")
            except NotAFrame:  # what it sends next cannot be trusted
                self._stop(key)
                return found, Unreadable(NotAFrame.__name__)
            if frame is None:
                return found, self._lost(key, name, deadline)
            try:
                read = header(frame)
                message = call_in(read[0]) or from_frame(frame, read)  # a call's arrays go to the server unread
                asked = message.get("nonce") == nonce
                if "call" not in message:
                    if not asked or message.get("case") != len(found):  # a leftover process wrote it
                        self._stop(key)
                        return found, UNASKED
                    found.append(outcome_from_wire(message["outcome"]))
                    if found[-1].timed_out:  # the child runs no later case of this answer (child.py)
                        return found, None
            except Exception as e:  # what it sends next cannot be trusted
                self._stop(key)
                return found, Unreadable(type(e).__name__)
            if "call" not in message:  # the next case starts: its own deadline
                if len(found) == len(cases) or self.spending.spent():  # the budget: said by the next case
                    return found, None
                seconds = cases[len(found)].get("seconds", self.seconds_per_call)
                deadline, outgoing = self._deadline(seconds), b""
                continue
            if self.spending.spent():
                return found, self._over_budget()
            # A call without this request's token (a stand-in kept from an earlier answer) is refused.
            outgoing = self._stand_in_reply(message, frame, read, stand_ins if asked else (), deadline)

    def _stand_in_reply(self, message: dict, frame: bytes, read: tuple[dict, int], allowed, deadline: float) -> bytes:
        """The frame that answers a stand-in's call `message` (as the child sent it, `frame`, its header `read`):
        the reference's answer from the stand-in server, or a refusal for a call this answer may not make."""
        name = message.get("call")
        if name not in allowed:
            return frame_of({"error": ("RuntimeError", f"no stand-in for {name!r} while this answer is graded")})
        reply, cpu = stand_in_server.answer(frame, self.budget.memory_bytes, self.budget.reply_bytes, deadline, read)
        self.spending.charge(cpu)
        return reply

    def _stopped_for(self, name: str, kind: str, why: str) -> Outcome:
        """End every child, and fail this case and every later one of answer `name` with `why`."""
        self._stop_all()
        self._stopped[name] = (kind, why)
        return Outcome.raising(kind, why)

    def _over_budget(self) -> Outcome:
        self._stop_all()  # its processes end now, not with the last case
        return Outcome.raising(BUDGET_SPENT, self.spending.message)

    def _lost(self, key: str, name: str, deadline: float) -> Outcome:
        try:  # it closed its end: it is ending, or has ended; it gets until the case's deadline to end
            code = self._children[key].wait(timeout=max(0.0, deadline - time.monotonic()) + 1)
        except subprocess.TimeoutExpired:
            return self._stopped_for(name, "ProcessEnded", "your code closed the grader's pipes")
        why = {-9: "killed (it used more memory or CPU time than allowed?)",
               -25: "stopped for writing a file over the size limit"}.get(code, f"exit code {code}")
        return self._stopped_for(name, "ProcessEnded", f"your code ended the grading process ({why})")

    def _stop(self, key: str) -> None:
        child = self._children.pop(key, None)
        if child is not None:
            child.stop()

    def _stop_all(self) -> None:
        for key in list(self._children):
            self._stop(key)

    def close(self) -> None:
        self._stop_all()
        remove_tree(self._scratch)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
