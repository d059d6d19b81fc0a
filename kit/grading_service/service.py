"""The grading service's loop: hand-ins in, rounds out, every outcome recorded and logged.

`GradingService(root).run()` runs until it is stopped (SIGTERM or SIGINT), as
the instructor's account (or a grader account; never as root: it refuses),
one service per course at a time (a lock in service/). About once a second it

- reads course.toml `[service]` (so `on = false` pauses it without a restart),
- records the hand-ins that arrived whole (arrivals.py) in the journal,
- when the last round's process has ended, records what it did with each
  hand-in (rounds.py, journal.py `finish`),
- and when no round runs, takes the next round's turns (turns.py) in the
  journal, then starts its process (processes.py): at most ROUND_PER_WORKER
  students for each of course.toml's grading workers.

Every outcome is a line of its log (service/<assignment>.log, and the
standard error, which the hub or systemd keeps); each round's commands log
into service/rounds/<id>.log. Started again after a crash, it first ends what
is left of the last round's process and records its hand-ins as failed, so
that they wait again in their places (journal.py).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

from autograder.whole_file import write_bytes_whole
from kit import nbgrader_cli
from kit.course import Course, course
from kit.grading_service import processes
from kit.grading_service.arrivals import Arrivals
from kit.grading_service.journal import MAX_TRIES, Journal, journal_path
from kit.grading_service.outcome import FAILED, GRADED, NOTICED, REPLACED, UNREADABLE, Outcome
from kit.grading_service.rounds import RoundFolders, run_round
from kit.grading_service.turns import NOTICE, Round, next_round
from kit.hand_in.tree import shown

POLL_SECONDS = 1.0
ROUND_PER_WORKER = 4  # students a round takes per grading worker: its fixed costs shared, new arrivals soon served


class NotAsRoot(RuntimeError):
    """The service refuses to run as root."""


def service_folder(root: Path) -> Path:
    return Path(root) / "service"


def logger(path: Path) -> logging.Logger:
    """The service's log: each line with its UTC time, to `path` and the standard error."""
    log = logging.getLogger("kit.grading_service")
    log.setLevel(logging.INFO)
    log.propagate = False
    form = logging.Formatter("%(asctime)s UTC %(message)s", "%Y-%m-%d %H:%M:%S")
    form.converter = time.gmtime
    for handler in (logging.FileHandler(path, encoding="utf-8"), logging.StreamHandler(sys.stderr)):
        handler.setFormatter(form)
        log.addHandler(handler)
    return log


class GradingService:
    def __init__(self, root: Path):
        if os.geteuid() == 0:  # before anything is made: a folder of root's would lock the instructor's service out
            raise NotAsRoot("the grading service runs student code through the grader: run it as the instructor's "
                            "account (README: Grading on hand-in), never as root")
        self.root = Path(root)
        settings = course(self.root)
        self.folder = service_folder(self.root)
        self.folder.mkdir(mode=0o700, exist_ok=True)
        (self.folder / "rounds").mkdir(exist_ok=True)
        self.log = logger(self.folder / f"{settings.assignment}.log")
        self.journal = Journal(journal_path(self.root, settings.assignment))
        self.known = self.journal.names()
        self.running: tuple[int, int, Round] | None = None  # (round id, its process's pid, its turns)
        self.stopping = False
        self.was_on: bool | None = None

    def run(self) -> int:
        self.lock = self._only_one()
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, self._stop)
        self.log.info("grading service started (pid %d) for %s", os.getpid(), self.root)
        self._end_unfinished_round()
        self._warm()
        while not self.stopping:
            self.step(time.time())
            self._sleep()
        if self.running:
            round_id, pid, _ = self.running
            processes.end_session(pid, processes.start_ticks(pid))
            os.waitpid(pid, 0)
            self.log.info("round %d stopped with the service: its hand-ins are taken again at the next start",
                          round_id)
        self.log.info("grading service stopped")
        os.close(self.lock)
        return 0

    def _only_one(self) -> int:
        """The course's service lock, held while this process lives (waits for another service to end)."""
        fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.log.warning("another grading service runs on this course (pid %s): waiting for it to end",
                             os.pread(fd, 32, 0).decode().strip() or "?")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return fd

    def _stop(self, signum, frame) -> None:
        self.stopping = True

    def _sleep(self) -> None:
        deadline = time.monotonic() + POLL_SECONDS
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(0.05)

    def _warm(self) -> None:
        """What every round needs, once, before any is forked: nbgrader's commands and the hidden cases."""
        from autograder.cases import build_every_hidden_case

        nbgrader_cli.preload()
        build_every_hidden_case()

    def _end_unfinished_round(self) -> None:
        unfinished = self.journal.unfinished()
        if unfinished is None:
            return
        round_id, session, ticks = unfinished
        ended = processes.end_session(session, ticks) if session else 0
        names = self.journal.put_back(round_id)
        self.log.info("round %d was under way when the service stopped (%d of its processes ended now): its "
                      "hand-ins wait again in their places: %s", round_id, ended, ", ".join(map(shown, names)))

    def step(self, now: float) -> None:
        """Once a second: record what arrived and what the last round did; start the next round."""
        settings = course(self.root)
        if self.running:
            self._reap(now)
        if settings.service.on != self.was_on:
            self.was_on = settings.service.on
            self.log.info("grading on hand-in is %s (course.toml [service] on)", "on" if self.was_on else
                          "off: hand-ins wait for the instructor's own loop, or for it to be on")
        if not settings.service.on:
            return
        self._arrived(settings, now)
        if self.running is None:
            turns = next_round(self.journal.waiting(), self.journal.charged(now), settings.service, now,
                               ROUND_PER_WORKER * (settings.workers or len(os.sched_getaffinity(0))))
            if turns:
                self._start(turns, now)

    def _arrived(self, settings: Course, now: float) -> None:
        inbound = RoundFolders(self.root, settings).exchange / "inbound"
        arrivals = Arrivals(inbound, settings, self.root, self.known).new(now)
        if not arrivals:
            return
        self.journal.arrived([(a.name, a.student, a.arrived) for a in arrivals],
                             {a.name: a.outcome for a in arrivals if a.outcome})
        for arrival in arrivals:
            if arrival.outcome:
                self._log_outcome(arrival.outcome, arrival.student, arrival.arrived, now)

    def _start(self, turns: Round, now: float) -> None:
        round_id = self.journal.take(turns, now)
        for turn in turns.turns:
            for older in turn.replaces:
                self._log_outcome(Outcome(older, REPLACED, turn.hand_in.name), turn.hand_in.student, None, now)
        outcome_file = self.folder / "rounds" / f"{round_id}.json"
        log_file = self.folder / "rounds" / f"{round_id}.log"

        def run() -> int:
            with open(log_file, "a", encoding="utf-8") as log:
                outcomes = run_round(self.root, turns.turns, lambda line: print(line, file=log, flush=True))
            write_bytes_whole(outcome_file, json.dumps([outcome.plain() for outcome in outcomes]).encode())
            return 0

        pid = processes.start(run, close=(self.lock,))  # a service started again after a crash gets it at once
        self.journal.started(round_id, pid, processes.start_ticks(pid))
        self.running = (round_id, pid, turns)
        grading = [t.hand_in.student for t in turns.turns if t.role != NOTICE]
        notices = [t.hand_in.student for t in turns.turns if t.role == NOTICE]
        self.log.info("round %d: grading %s%s (its commands' log: %s)", round_id, ", ".join(grading) or "nobody",
                      f"; a notice for {', '.join(notices)}" if notices else "", log_file.relative_to(self.root))

    def _reap(self, now: float) -> None:
        round_id, pid, turns = self.running
        done, status = os.waitpid(pid, os.WNOHANG)
        if not done:
            return
        self.running = None
        outcome_file = self.folder / "rounds" / f"{round_id}.json"
        try:
            outcomes = [Outcome.from_plain(plain) for plain in json.loads(outcome_file.read_text())]
        except (OSError, ValueError):
            why = f"its round's process ended ({_status(status)}) before it said what it did (see its log)"
            outcomes = [Outcome(turn.hand_in.name, FAILED, why) for turn in turns.turns]
        self._record(round_id, outcomes, now)

    def _record(self, round_id: int, outcomes: list[Outcome], now: float) -> None:
        self.journal.finish(round_id, outcomes, now)
        students = {name: (student, arrived) for name, student, arrived in self.journal.who(
            [outcome.name for outcome in outcomes])}
        for outcome in outcomes:
            student, arrived = students[outcome.name]
            self._log_outcome(outcome, student, arrived, now)

    def _log_outcome(self, outcome: Outcome, student: str, arrived: float | None, now: float) -> None:
        after = f" ({now - arrived:.0f} s after it arrived)" if arrived is not None else ""
        what = {GRADED: f"graded, {outcome.detail}; its feedback released{after}",
                NOTICED: f"over the limit: collected, and its feedback says: {outcome.detail}{after}",
                REPLACED: f"replaced by the newer {shown(outcome.detail)} before it was graded",
                UNREADABLE: f"not graded: {outcome.detail}{after}"}.get(outcome.kind)
        if outcome.kind == FAILED:
            tries = self.journal.tries(outcome.name)
            what = (f"failed: {outcome.detail}; " + ("it waits to be tried again" if tries < MAX_TRIES else
                                                      f"given up after {tries} rounds"))
        self.log.info("hand-in %s of %s: %s", shown(outcome.name), shown(student),
                      what or f"{outcome.kind}: {outcome.detail}")


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
