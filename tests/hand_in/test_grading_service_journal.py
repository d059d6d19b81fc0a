"""Does the grading service's journal keep every hand-in, whole or absent, whatever stops the service?
(kit/grading_service/journal.py; the class report's attempts, kit/report/)
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from kit.course import ServicePolicy
from kit.grading_service.journal import MAX_TRIES, Journal, attempts
from kit.grading_service.outcome import FAILED, GRADED, NOTICED, REFUSED, UNREADABLE, Outcome
from kit.grading_service.turns import GRADE, Round, Turn, Waiting, next_round
from kit.notebooks import ROOT

NOW = 1_000_000.0
NO_LIMIT = ServicePolicy(on=True)


def journal_with(tmp_path, *students: str) -> Journal:
    journal = Journal(tmp_path / "service" / "attention.db")
    journal.arrived([(f"{s}+{i}", s, NOW + i) for i, s in enumerate(students)], {})
    return journal


def take_all(journal: Journal, policy: ServicePolicy = NO_LIMIT, now: float = NOW + 100) -> tuple[int, Round]:
    turns = next_round(journal.waiting(), journal.charged(now), policy, now, size=100)
    return journal.take(turns, now), turns


def test_a_graded_hand_in_is_done_charged_and_its_attempt_recorded(tmp_path):
    journal = journal_with(tmp_path, "ann", "bo", "ann")
    round_id, turns = take_all(journal)
    assert [t.hand_in.name for t in turns.turns] == ["ann+2", "bo+1"]
    journal.finish(round_id, [Outcome("ann+2", GRADED, "3 / 3 points", {"softmax": True, "attention": False}, 3.0),
                              Outcome("bo+1", REFUSED, "it is a named pipe")], NOW + 200)
    assert journal.waiting() == [] and journal.unfinished() is None
    assert journal.charged(NOW + 300) == {"ann": [NOW + 2]}  # charged at its arrival
    assert {name: outcome for name, _, _, outcome, _ in journal.recent(10)} == {
        "ann+0": "replaced", "ann+2": GRADED, "bo+1": REFUSED}
    assert attempts(tmp_path / "service" / "attention.db") == {"softmax": {"ann": [True]}, "attention": {"ann": [False]}}


def test_a_hand_in_none_of_whose_notebooks_can_be_read_is_done_and_not_charged_against_the_limit(tmp_path):
    """Its pages say why and nothing of it was graded: the student's next graded feedback is not put off."""
    journal = journal_with(tmp_path, "ann")
    round_id, _ = take_all(journal)
    journal.finish(round_id, [Outcome("ann+0", UNREADABLE, "none of its notebooks could be read")], NOW + 200)
    assert journal.waiting() == [] and journal.charged(NOW + 300) == {}
    assert attempts(tmp_path / "service" / "attention.db") == {}


def test_a_noticed_hand_in_waits_for_its_graded_turn_and_a_failed_one_is_tried_again_a_few_times(tmp_path):
    journal = journal_with(tmp_path, "ann", "bo")
    round_id, _ = take_all(journal)
    journal.finish(round_id, [Outcome("ann+0", NOTICED, "next graded feedback at ..."),
                              Outcome("bo+1", FAILED, "the disk is full")], NOW + 200)
    assert [(h.name, h.noticed) for h in journal.waiting()] == [("ann+0", True), ("bo+1", False)]
    for _ in range(MAX_TRIES - 1):
        round_id, turns = take_all(journal)
        journal.finish(round_id, [Outcome(t.hand_in.name, FAILED, "the disk is full") for t in turns.turns],
                       NOW + 300)
    assert [h.name for h in journal.waiting()] == []  # both given up after MAX_TRIES rounds
    assert journal.tries("bo+1") == MAX_TRIES


def test_a_round_a_crash_left_unfinished_is_found_and_its_hand_ins_wait_again_in_their_places(tmp_path):
    journal = journal_with(tmp_path, "ann", "bo", "cy")
    round_id, _ = take_all(journal)
    journal.started(round_id, 4242, 17)
    journal.close()
    again = Journal(tmp_path / "service" / "attention.db")  # the service started again
    assert again.unfinished() == (round_id, 4242, 17)
    assert again.put_back(round_id) == ["ann+0", "bo+1", "cy+2"]
    assert again.unfinished() is None and [again.tries(n) for n in ("ann+0", "bo+1", "cy+2")] == [0, 0, 0]
    again.arrived([("dee+9", "dee", NOW + 150)], {})
    _, turns = take_all(again)
    assert [t.hand_in.student for t in turns.turns] == ["ann", "bo", "cy", "dee"]


class _DiesOnSecondRole(Turn):
    """A turn whose role, asked for the second time, kills the process: mid-way through `take`."""
    asked = 0

    @property
    def role(self):
        type(self).asked += 1
        if type(self).asked > 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return GRADE


def test_a_service_killed_in_the_middle_of_taking_a_round_leaves_nothing_of_it(tmp_path):
    journal = journal_with(tmp_path, "ann", "bo")
    journal.close()
    pid = os.fork()
    if pid == 0:  # the service, killed between two hand-ins of one transaction
        child = Journal(tmp_path / "service" / "attention.db")
        turns = [object.__new__(_DiesOnSecondRole) for _ in range(2)]
        for turn, waiting in zip(turns, child.waiting()):
            object.__setattr__(turn, "hand_in", waiting)
            for name, value in (("replaces", ()), ("next_graded_at", 0.0), ("why_waiting", "")):
                object.__setattr__(turn, name, value)
        child.take(Round(turns), NOW + 100)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    after = Journal(tmp_path / "service" / "attention.db")
    assert after.unfinished() is None  # no round recorded, no hand-in taken: absent
    assert [(h.name, after.tries(h.name)) for h in after.waiting()] == [("ann+0", 0), ("bo+1", 0)]


def test_the_class_report_shows_how_many_graded_attempts_each_exercise_took_before_it_passed():
    from kit.report.collect import ClassResults, Exercise
    from kit.report.page import render
    from kit.report.summary import summary

    softmax = Exercise("softmax", 4, True, students=3,
                       attempts={"ann": [False, False, True], "bo": [True], "cy": [False, False]})
    attention = Exercise("attention", 4, True, students=3)  # no attempt graded on hand-in: not in the table
    results = ClassResults("attention", [softmax, attention], [], [])
    page = render(results, charts=[])
    assert "Graded on hand-in: attempts before passing" in page
    table = re.search(r'<table class="attempts">.*?</table>', page, re.DOTALL)[0]
    rows = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).split() for row in table.split("<tr>")[2:]]
    # exercise, passed, at the first attempt, median, most, not passed yet, their attempts, who
    assert rows == [["softmax", "2", "1", "2", "3", "1", "2", "cy"]]
    anonymous = re.sub(r"<[^>]+>", " ", render(results, charts=[], anonymous=True))
    assert "cy" not in anonymous
    assert "Graded on hand-in, attempts before passing (median): softmax 2" in summary(results)


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal is root's: run as root (CI does)")
def test_the_service_refused_as_root_leaves_nothing_that_would_lock_the_instructors_service_out(tmp_path):
    """It made service/ (root's, mode 700) before refusing: the instructor's own service then failed on it."""
    shutil.copy(ROOT / "course.toml", tmp_path / "course.toml")
    refused = subprocess.run([sys.executable, "-m", "kit.grading_service", "--course", str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "Refused: " in refused.stderr and "never as root" in refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course.toml"]
