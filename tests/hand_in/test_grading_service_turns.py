"""Whose hand-in does the grading service take next, and when may a student have graded feedback again?
(kit/grading_service/turns.py, limit.py)

One pending grading per student (the newest hand-in, the older ones still waiting replaced), students
served in order of arrival, a student who hands in a hundred times one candidate among the others, and
a student over the limit given a notice at once and graded when their time comes.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kit.course import ServicePolicy
from kit.grading_service.limit import DAY, next_graded_at, why_waiting
from kit.grading_service.turns import GRADE, NOTICE, Waiting, next_round

NO_LIMIT = ServicePolicy(on=True)
NOW = 1_000_000.0


def hand_ins(*students: str, start: int = 1) -> list[Waiting]:
    """One hand-in for each of `students`, in that order of arrival (a name may come back: a new hand-in)."""
    return [Waiting(f"{s}+attention+{i}", s, i, NOW - 100 + i, False) for i, s in enumerate(students, start=start)]


def test_each_student_is_one_candidate_graded_on_their_newest_hand_in_in_order_of_arrival():
    waiting = hand_ins("ann", "bo", "ann", "cy", "ann")
    turns = next_round(waiting, {}, NO_LIMIT, NOW, size=10).turns
    assert [(t.hand_in.student, t.hand_in.seq, t.role) for t in turns] == [("ann", 5, GRADE), ("bo", 2, GRADE),
                                                                           ("cy", 4, GRADE)]
    assert turns[0].replaces == ("ann+attention+1", "ann+attention+3")  # ann keeps the place of her first


def test_a_round_takes_at_most_its_size_and_the_rest_keep_their_places():
    waiting = hand_ins("ann", "bo", "cy", "dee")
    assert [t.hand_in.student for t in next_round(waiting, {}, NO_LIMIT, NOW, size=2).turns] == ["ann", "bo"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(st.integers(2, 30), st.integers(1, 100), st.integers(1, 8), st.randoms(use_true_random=False))
def test_a_student_who_floods_delays_each_other_student_by_one_grading_at_most(others, flood, size, rng):
    """One hand-in per honest student and `flood` of the flooder's arrive in a random order, a few before
    each round of `size` is taken. The honest students are graded in the order they arrived; between an
    honest student's arrival and the round that grades them, the flooder is graded once at most; every
    hand-in is graded or replaced by its student's newer one, and the flooder's last is graded."""
    arrivals = [f"s{i:02d}" for i in range(others)] + ["flooder"] * flood
    rng.shuffle(arrivals)
    pending, waiting, seqs = list(arrivals), [], iter(range(1, len(arrivals) + 1))
    arrived, graded, replaced, rounds = {}, [], set(), 0  # graded: (round, student, hand-in)
    while pending or waiting:
        for _ in range(rng.randint(0, 3)):
            if pending:
                student, seq = pending.pop(0), next(seqs)
                waiting.append(Waiting(f"{student}+{seq}", student, seq, 0.0, False))
                arrived[f"{student}+{seq}"] = rounds
        for turn in next_round(waiting, {}, NO_LIMIT, NOW, size).turns:
            graded.append((rounds, turn.hand_in.student, turn.hand_in.name))
            replaced.update(turn.replaces)
        done = {name for _, _, name in graded} | replaced
        waiting = [h for h in waiting if h.name not in done]
        rounds += 1
    honest = [(at, student, name) for at, student, name in graded if student != "flooder"]
    assert [student for _, student, _ in honest] == [s for s in arrivals if s != "flooder"]
    for at, student, name in honest:
        flooder = [r for r, s, _ in graded if s == "flooder" and arrived[name] <= r < at]
        assert len(flooder) <= 1, (student, graded)
    assert {name for _, _, name in graded} | replaced == set(arrived)
    last = max((n for n in arrived if n.startswith("flooder+")), key=lambda n: int(n.split("+")[1]))
    assert last in {name for _, _, name in graded}


def test_over_the_limit_a_student_gets_a_notice_at_once_and_is_graded_when_their_time_comes():
    gap = ServicePolicy(on=True, min_gap_minutes=15)
    charged = {"ann": [NOW - 60]}  # graded a minute ago
    waiting = hand_ins("ann", "bo")
    turns = next_round(waiting, charged, gap, NOW, size=10).turns
    assert [(t.hand_in.student, t.role) for t in turns] == [("ann", NOTICE), ("bo", GRADE)]
    assert turns[0].next_graded_at == NOW - 60 + 15 * 60
    assert "one every 15 minutes" in turns[0].why_waiting and "1 graded feedback" in turns[0].why_waiting
    noticed = [Waiting(waiting[0].name, "ann", 1, waiting[0].arrived, True)]
    assert not next_round(noticed, charged, gap, NOW + 60, size=10)  # noticed, and not yet time: nothing to do
    [later] = next_round(noticed, charged, gap, NOW - 60 + 15 * 60, size=10).turns
    assert (later.role, later.hand_in.name, later.charged_at) == (GRADE, waiting[0].name, NOW - 60 + 15 * 60)


def test_a_newer_hand_in_over_the_limit_gets_its_own_notice_and_replaces_the_noticed_one():
    gap = ServicePolicy(on=True, min_gap_minutes=15)
    waiting = [Waiting("ann+1", "ann", 1, NOW - 30, True), Waiting("ann+2", "ann", 2, NOW - 10, False)]
    [turn] = next_round(waiting, {"ann": [NOW - 60]}, gap, NOW, size=10).turns
    assert (turn.role, turn.hand_in.name, turn.replaces) == (NOTICE, "ann+2", ("ann+1",))


def test_per_day_counts_the_last_24_hours_and_the_gap_the_last_graded_feedback():
    assert next_graded_at([], ServicePolicy(per_day=2, min_gap_minutes=10)) == 0.0
    assert next_graded_at([100.0], ServicePolicy(per_day=2, min_gap_minutes=10)) == 100.0 + 600
    assert next_graded_at([100.0, 200.0], ServicePolicy(per_day=2)) == 100.0 + DAY
    assert next_graded_at([100.0, 200.0, 300.0], ServicePolicy(per_day=2)) == 200.0 + DAY
    assert next_graded_at([100.0, 200.0], ServicePolicy(per_day=2, min_gap_minutes=60 * 48)) == 200.0 + 2 * DAY
    assert next_graded_at([100.0] * 50, NO_LIMIT) == 0.0
    assert why_waiting([NOW - DAY - 1, NOW - 5], ServicePolicy(per_day=1), NOW) == \
        "You have had 1 graded feedback in the last 24 hours; the course gives at most 1 a day."


def test_the_order_of_the_waiting_list_given_makes_no_difference():
    waiting = hand_ins("ann", "bo", "ann", "cy")
    shuffled = list(waiting)
    random.Random(0).shuffle(shuffled)
    assert next_round(shuffled, {}, NO_LIMIT, NOW, 10) == next_round(waiting, {}, NO_LIMIT, NOW, 10)
