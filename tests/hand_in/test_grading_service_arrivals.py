"""Which hand-ins has the grading service seen arrive whole, whose are they, are they on time, and what
does a hand-in over the limit get? (kit/grading_service/arrivals.py, notice.py)"""

from __future__ import annotations

import dataclasses
import datetime
import os
import time

import pytest

from kit.course import ServicePolicy, course
from kit.grading_service.arrivals import SETTLE_SECONDS, Arrivals
from kit.grading_service.notice import write_notices
from kit.grading_service.outcome import LATE, REFUSED
from kit.hand_in.secret import SECRET
from kit.notebooks import ROOT


def stamp(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def hand_in(inbound, student: str, claimed: float, suffix: str = "x") -> str:
    name = f"{student}+attention+{stamp(claimed)}+{suffix}"
    (inbound / name).mkdir()
    (inbound / name / "01_worked_example.ipynb").write_text("{}")
    (inbound / name / SECRET).write_text("s" * 128)
    return name


@pytest.fixture
def settings():
    return dataclasses.replace(course(ROOT), exchange_root="", service=ServicePolicy(on=True),
                               duedate="2100-01-01T00:00:00+00:00")


def test_a_hand_in_arrives_once_it_is_still_and_is_seen_once(tmp_path, settings):
    name = hand_in(tmp_path, "ann", time.time())
    arrivals = Arrivals(tmp_path, settings, ROOT, set())
    assert arrivals.new(time.time()) == []  # nbgrader's submit may still be writing it
    later = time.time() + SETTLE_SECONDS + 1
    [arrived] = arrivals.new(later)
    assert (arrived.name, arrived.student, arrived.outcome) == (name, "ann", None)
    assert arrived.arrived == pytest.approx(os.stat(tmp_path / name / SECRET).st_ctime, abs=1)
    assert arrivals.new(later) == []


def test_hand_ins_come_in_the_order_they_arrived_and_another_assignments_are_not_looked_at(tmp_path, settings):
    first = hand_in(tmp_path, "zed", time.time())
    time.sleep(0.05)
    second = hand_in(tmp_path, "abe", time.time())
    (tmp_path / "abe+other+2026-12-01 10:00:00.000000 UTC+x").mkdir()
    assert [a.name for a in Arrivals(tmp_path, settings, ROOT, set()).new(time.time() + 10)] == [first, second]


def test_a_name_that_claims_no_student_is_refused_at_once(tmp_path, settings):
    (tmp_path / "+attention+whenever").mkdir()
    [arrived] = Arrivals(tmp_path, settings, ROOT, set()).new(time.time() + 10)
    assert arrived.outcome.kind == REFUSED and "is not <student>+attention+<time>" in arrived.outcome.detail


@pytest.mark.skipif(os.geteuid() != 0, reason="gives a hand-in to another account: root only")
def test_on_a_shared_exchange_a_hand_in_of_another_account_is_refused_and_takes_nobodys_place(tmp_path, settings):
    name = hand_in(tmp_path, "root", time.time())
    forged = hand_in(tmp_path, "root", time.time(), suffix="forged")
    os.chown(tmp_path / forged, 65534, 65534)  # nobody's, claiming to be root's
    shared = dataclasses.replace(settings, exchange_root=str(tmp_path))
    found = {a.name: a.outcome for a in Arrivals(tmp_path, shared, ROOT, set()).new(time.time() + 10)}
    assert found[name] is None
    assert found[forged].kind == REFUSED and "belongs to nobody, not to root" in found[forged].detail


def test_with_stop_at_deadline_a_hand_in_stamped_after_the_due_date_is_left_to_the_instructor(tmp_path, settings):
    now = time.time()
    due = dataclasses.replace(settings, duedate=datetime.datetime.fromtimestamp(now - 3600, datetime.timezone.utc)
                              .isoformat(), service=ServicePolicy(on=True, stop_at_deadline=True))
    on_time = hand_in(tmp_path, "ann", now - 3600 - 30 - settings.clock_slack_seconds)  # claims 30 s before due
    late = hand_in(tmp_path, "bo", now - 600)
    found = {a.name: a.outcome for a in Arrivals(tmp_path, due, ROOT, set()).new(now + 10)}
    # ann's files changed more than the clock slack after her claim: stamped then, after the due date (collect.py)
    assert found[on_time].kind == LATE and found[late].kind == LATE
    going_on = dataclasses.replace(due, service=ServicePolicy(on=True, stop_at_deadline=False))
    assert all(a.outcome is None for a in Arrivals(tmp_path, going_on, ROOT, set()).new(now + 10))


def test_a_hand_in_over_the_limit_gets_one_page_per_notebook_saying_when_the_next_graded_feedback_comes(tmp_path):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    for notebook in ("01_worked_example", "<img src=x onerror=alert(1)>"):  # a file name of the student's
        (submitted / f"{notebook}.ipynb").write_text("{}")
    (submitted / SECRET).write_text("secret")
    (submitted / "timestamp.txt").write_text("2026-12-04 22:51:57.156186 UTC")
    at = datetime.datetime(2026, 12, 4, 23, 50, 48, tzinfo=datetime.timezone.utc).timestamp()
    pages = write_notices(tmp_path / "notices", submitted, "attention", at, "The course gives one every 60 minutes.")
    assert sorted(p.name for p in (tmp_path / "notices").iterdir()) == sorted(
        [SECRET, "timestamp.txt", "01_worked_example.html", "<img src=x onerror=alert(1)>.html"])
    for page in pages:
        text = page.read_text()
        assert '<html lang="en">' in text and "<title>" in text and "<h1>" in text
        assert "Next graded feedback at 2026-12-04 23:51 UTC" in text  # to the minute, rounded up
        assert "Your hand-in of attention at 2026-12-04 22:51:57.156186 UTC is collected" in text
        assert "The course gives one every 60 minutes." in text
        assert "<img" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[-1].read_text()  # the student's file name, escaped
