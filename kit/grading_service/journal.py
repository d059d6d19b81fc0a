"""The grading service's record of every hand-in it saw and what became of it: whole or absent.

One SQLite file in the course (`service/<assignment>.db`), written by the
service alone, each change one transaction committed to disk before the
service acts on it:

- a hand-in is recorded once, when it has arrived whole (arrivals.py), with its
  arrival order; or at once as done, when the service itself turns it away;
- a round takes hand-ins in one transaction (`take`): their state becomes
  taken, the older hand-ins they replace done; then its process starts;
- when the round's process ends, its outcomes are recorded in one transaction
  (`finish`): graded (charged to the student's limit, each exercise passed or
  not), noticed (waiting again, for its graded turn), refused, or failed
  (waiting again, up to MAX_TRIES rounds).

A service killed at any point finds, when it starts again, at most one round
taken and not finished (`unfinished`): once what is left of its process is
ended, its hand-ins wait again in their places (`put_back`, not counted as a
try), and the next round takes them; nbgrader's own steps then do again only
what was not done whole (kit/nbgrader_glue/whole_or_absent.py: a student
graded whole is not graded again). So no hand-in is lost, and none is graded
twice. `attempts` (the class report) reads each student's graded
attempts, in order.
"""

from __future__ import annotations

import sqlite3
import time
from collections import defaultdict
from pathlib import Path

from kit.grading_service.limit import DAY
from kit.grading_service.outcome import FAILED, GRADED, NOTICED, REPLACED, Outcome
from kit.grading_service.turns import Round, Waiting

MAX_TRIES = 3  # rounds a hand-in may fail in (a full disk, a locked gradebook) before it is given up
WAITING, TAKEN, DONE = "waiting", "taken", "done"

SCHEMA = """
CREATE TABLE IF NOT EXISTS hand_ins (
    name TEXT PRIMARY KEY,        -- the hand-in's folder in the exchange's inbound/
    student TEXT NOT NULL,
    seq INTEGER NOT NULL UNIQUE,  -- arrival order
    arrived REAL NOT NULL,        -- when it had arrived whole (Unix seconds)
    state TEXT NOT NULL,          -- waiting, taken, done
    noticed INTEGER NOT NULL DEFAULT 0,
    tries INTEGER NOT NULL DEFAULT 0,
    round INTEGER,                -- taken: the round that took it
    role TEXT,                    -- taken: grade or notice
    next_at REAL,                 -- taken: when the student's next graded feedback is due (turns.Turn)
    why TEXT,                     -- taken for a notice: the limit, in a sentence
    charged REAL,                 -- graded: the time charged to the student's limit
    outcome TEXT,                 -- the last thing done with it (outcome.py)
    detail TEXT,
    updated REAL
);
CREATE INDEX IF NOT EXISTS hand_ins_by_state ON hand_ins (state, seq);
CREATE INDEX IF NOT EXISTS hand_ins_by_charge ON hand_ins (student, charged);
CREATE TABLE IF NOT EXISTS rounds (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    session INTEGER,              -- the round's process: its session id and start time (processes.py)
    start_ticks INTEGER,
    finished REAL
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,       -- graded order
    hand_in TEXT NOT NULL,
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    passed INTEGER NOT NULL
);
"""


def journal_path(root: Path, assignment: str) -> Path:
    return Path(root) / "service" / f"{assignment}.db"


class Journal:
    def __init__(self, path: Path):
        path.parent.mkdir(mode=0o700, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")  # committed means on disk: the service acts on it next
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _transaction(self):
        return _Transaction(self.db)

    def names(self) -> set[str]:
        """Every hand-in recorded, whatever became of it."""
        return {name for (name,) in self.db.execute("SELECT name FROM hand_ins")}

    def arrived(self, hand_ins: list[tuple[str, str, float]], done: dict[str, Outcome]) -> None:
        """Record (name, student, arrival time) of hand-ins that arrived whole, in that order; those in
        `done` are recorded as done at once, with their outcome."""
        with self._transaction():
            (last,) = self.db.execute("SELECT coalesce(max(seq), 0) FROM hand_ins").fetchone()
            for seq, (name, student, arrived) in enumerate(hand_ins, start=last + 1):
                outcome = done.get(name)
                self.db.execute("INSERT INTO hand_ins (name, student, seq, arrived, state, outcome, detail, updated) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                (name, student, seq, arrived, DONE if outcome else WAITING,
                                 outcome.kind if outcome else None, outcome.detail if outcome else None, time.time()))

    def waiting(self) -> list[Waiting]:
        return [Waiting(*row, bool(noticed)) for *row, noticed in self.db.execute(
            "SELECT name, student, seq, arrived, noticed FROM hand_ins WHERE state = ? ORDER BY seq", (WAITING,))]

    def charged(self, now: float) -> dict[str, list[float]]:
        """student → when each graded feedback of the last 24 hours was charged (and the last one, if older)."""
        found = defaultdict(list)
        for student, at in self.db.execute(
                "SELECT student, charged FROM hand_ins WHERE charged IS NOT NULL AND (charged > ? OR charged = "
                "(SELECT max(charged) FROM hand_ins AS same WHERE same.student = hand_ins.student)) ORDER BY charged",
                (now - DAY,)):
            found[student].append(at)
        return dict(found)

    def take(self, next_round: Round, now: float) -> int:
        """Record that a round takes these turns (and the older hand-ins they replace); returns its id."""
        with self._transaction():
            round_id = self.db.execute("INSERT INTO rounds (started) VALUES (?)", (now,)).lastrowid
            for turn in next_round.turns:
                self.db.execute("UPDATE hand_ins SET state = ?, round = ?, role = ?, next_at = ?, why = ?, "
                                "tries = tries + 1, updated = ? WHERE name = ?",
                                (TAKEN, round_id, turn.role, turn.next_graded_at, turn.why_waiting, now,
                                 turn.hand_in.name))
                for older in turn.replaces:
                    self.db.execute("UPDATE hand_ins SET state = ?, outcome = ?, detail = ?, updated = ? "
                                    "WHERE name = ?", (DONE, REPLACED, turn.hand_in.name, now, older))
        return round_id

    def started(self, round_id: int, session: int, start_ticks: int) -> None:
        """The round's process, so that a service started again can end what is left of it."""
        with self._transaction():
            self.db.execute("UPDATE rounds SET session = ?, start_ticks = ? WHERE id = ?",
                            (session, start_ticks, round_id))

    def unfinished(self) -> tuple[int, int | None, int | None] | None:
        """The round taken and not finished, if any: (id, its process's session and start time)."""
        return self.db.execute("SELECT id, session, start_ticks FROM rounds WHERE finished IS NULL "
                               "ORDER BY id LIMIT 1").fetchone()

    def who(self, names: list[str]) -> list[tuple[str, str, float]]:
        """(name, student, arrival time) of each hand-in of `names`."""
        return [self.db.execute("SELECT name, student, arrived FROM hand_ins WHERE name = ?", (name,)).fetchone()
                for name in names]

    def put_back(self, round_id: int) -> list[str]:
        """End a round the service did not see finish (it was stopped or killed during it): its hand-ins wait
        again in their places, the round not counted as one of their tries; returns their names."""
        with self._transaction():
            names = [name for (name,) in self.db.execute("SELECT name FROM hand_ins WHERE state = ? AND round = ? "
                                                         "ORDER BY seq", (TAKEN, round_id))]
            self.db.execute("UPDATE hand_ins SET state = ?, round = NULL, role = NULL, tries = tries - 1, "
                            "updated = ? WHERE state = ? AND round = ?", (WAITING, time.time(), TAKEN, round_id))
            self.db.execute("UPDATE rounds SET finished = ? WHERE id = ?", (time.time(), round_id))
        return names

    def tries(self, name: str) -> int:
        (tries,) = self.db.execute("SELECT tries FROM hand_ins WHERE name = ?", (name,)).fetchone()
        return tries

    def finish(self, round_id: int, outcomes: list[Outcome], now: float) -> None:
        """Record what the round did with each hand-in it took, and that it is over."""
        with self._transaction():
            for outcome in outcomes:
                state = DONE
                if outcome.kind == NOTICED or (outcome.kind == FAILED and self.tries(outcome.name) < MAX_TRIES):
                    state = WAITING  # a notice waits for its graded turn; a failure is tried again
                self.db.execute("UPDATE hand_ins SET state = ?, outcome = ?, detail = ?, round = NULL, role = NULL, "
                                "noticed = noticed OR ?, updated = ?, "
                                "charged = CASE WHEN ? THEN max(arrived, coalesce(next_at, 0)) ELSE charged END "
                                "WHERE name = ?", (state, outcome.kind, outcome.detail, outcome.kind == NOTICED, now,
                                                   outcome.kind == GRADED, outcome.name))
                if outcome.kind == GRADED:
                    (student,) = self.db.execute("SELECT student FROM hand_ins WHERE name = ?",
                                                 (outcome.name,)).fetchone()
                    self.db.executemany("INSERT INTO attempts (hand_in, student, exercise, passed) VALUES (?, ?, ?, ?)",
                                        [(outcome.name, student, exercise, passed)
                                         for exercise, passed in outcome.passed.items()])
            self.db.execute("UPDATE hand_ins SET state = ?, round = NULL, role = NULL, updated = ? "
                            "WHERE state = ? AND round = ?", (WAITING, now, TAKEN, round_id))  # none left out
            self.db.execute("UPDATE rounds SET finished = ? WHERE id = ?", (now, round_id))

    def recent(self, count: int) -> list[tuple[str, str, str, str, float]]:
        """The last `count` hand-ins changed: (name, student, state, outcome or '', when)."""
        return list(self.db.execute("SELECT name, student, state, coalesce(outcome, ''), updated FROM hand_ins "
                                    "ORDER BY updated DESC, seq DESC LIMIT ?", (count,)))


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK if the block raises."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, trace):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def attempts(path: Path) -> dict[str, dict[str, list[bool]]]:
    """exercise → student → whether each graded attempt passed it, in the order graded; {} without a journal.
    Read-only: the class report reads it while the service writes."""
    if not path.exists():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        found: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for student, exercise, passed in db.execute("SELECT student, exercise, passed FROM attempts ORDER BY id"):
            found[exercise][student].append(bool(passed))
    finally:
        db.close()
    return {exercise: dict(students) for exercise, students in found.items()}
