"""Whose hand-in the next round takes: one pending grading per student, in order of arrival.

`next_round` looks at every hand-in still waiting and chooses at most `size`
students:

- each student is one candidate, whatever the number of their hand-ins: their
  newest is the one taken, and the older ones still waiting are replaced by it
  (never graded: the newest is the student's work);
- a student whose next graded feedback is due (limit.py) is graded; their place
  in line is the arrival of their oldest hand-in still waiting, so a hand-in
  replaced by a newer one keeps its student's place;
- a student over the limit whose newest hand-in has had no notice yet gets one
  (collected as usual, its feedback saying when the next graded one comes, at
  the arrival of that newest hand-in's oldest unnoticed predecessor); once
  noticed, the hand-in waits for its time, then is graded as above.

So a student's turn comes after every student whose hand-in arrived before
theirs, each taken once: a student who hands in a hundred times is one
candidate in every round, and delays nobody by more than one grading.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kit.course import ServicePolicy
from kit.grading_service.limit import next_graded_at, why_waiting

GRADE, NOTICE = "grade", "notice"


@dataclass(frozen=True)
class Waiting:
    """A hand-in the service has seen and not yet done with."""
    name: str        # its folder in the exchange's inbound/
    student: str
    seq: int         # arrival order
    arrived: float   # Unix seconds
    noticed: bool    # its over-the-limit notice was released


@dataclass(frozen=True)
class Turn:
    """One student's hand-in taken by a round: graded, or collected with a notice."""
    hand_in: Waiting
    role: str                      # GRADE or NOTICE
    replaces: tuple[str, ...] = ()  # older hand-ins of the student, still waiting: never graded
    next_graded_at: float = 0.0    # when the student's next graded feedback is due (NOTICE: later than now)
    why_waiting: str = ""          # NOTICE: the limit, in a sentence

    @property
    def charged_at(self) -> float:
        """GRADE: the time charged to the student's limit: its arrival, or when it became due if later."""
        return max(self.hand_in.arrived, self.next_graded_at)


@dataclass
class Round:
    turns: list[Turn] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.turns)


def next_round(waiting: Iterable[Waiting], charged: dict[str, list[float]], policy: ServicePolicy, now: float,
               size: int) -> Round:
    """The turns of the next round: at most `size` students, first come first served (see the module)."""
    by_student: dict[str, list[Waiting]] = defaultdict(list)
    for hand_in in sorted(waiting, key=lambda h: h.seq):
        by_student[hand_in.student].append(hand_in)
    candidates = []
    for student, hand_ins in by_student.items():
        newest, older = hand_ins[-1], tuple(h.name for h in hand_ins[:-1])
        due = next_graded_at(charged.get(student, []), policy)
        if due <= now:
            candidates.append((hand_ins[0].seq, Turn(newest, GRADE, older, due)))
        elif not newest.noticed:
            first_unnoticed = next(h for h in hand_ins if not h.noticed)
            candidates.append((first_unnoticed.seq, Turn(newest, NOTICE, older, due,
                                                         why_waiting(charged.get(student, []), policy, now))))
    candidates.sort(key=lambda candidate: candidate[0])
    return Round([turn for _, turn in candidates[:size]])
