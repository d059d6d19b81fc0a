"""Does `nbgrader collect` take each hand-in whole, at the time of its bytes, and never stop for one student?

kit/hand_in/collect.py through nbgrader's own command, on a course's own exchange (one account: any account
can run these; tests/hand_in/test_hand_in.py runs the same kinds across real accounts on a hub's exchange). Each
student below hands in once, by writing a hand-in folder as nbgrader's submit does; one of them gets a
hand-in nbgrader's submit would not write. Each such hand-in is refused, named in the summary, and every
other student is collected.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
import time
from pathlib import Path

import pytest

from autograder import scratch
from autograder.sandbox import start_ticks
from kit.course import ASSIGNMENT, COURSE_ID
from kit.nbgrader_cli import command, environment, run, run_here
from tests.shared.course_copy import EXAMPLE

WORK = EXAMPLE / "ada" / ASSIGNMENT


def stamp(ago: datetime.timedelta) -> str:
    """A time `ago` before now, as nbgrader's submit writes it into a hand-in's name."""
    return (datetime.datetime.now(datetime.timezone.utc) - ago).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def hand_in(inbound: Path, student: str, claimed: str, secret: str | None = "", timestamp: bool = True) -> Path:
    """A hand-in of ada's notebooks as nbgrader's submit writes one (a secret made anew unless given; None:
    none), claiming the time `claimed`."""
    folder = inbound / f"{student}+{ASSIGNMENT}+{claimed}+{secrets.token_urlsafe(6)}"
    folder.mkdir()
    for notebook in WORK.glob("*.ipynb"):
        (folder / notebook.name).write_bytes(notebook.read_bytes())
    if timestamp:
        (folder / "timestamp.txt").write_text(claimed)
    if secret is not None:
        (folder / "submission_secret.txt").write_text(secret or secrets.token_hex(64))
    return folder


CLASS = ("honest", "within_slack", "late_bytes", "timestamp_folder", "no_secret", "empty_secret", "copied_secret")


@pytest.fixture(scope="module")
def collected(tmp_path_factory, copy_released):
    """The class handed in, then `nbgrader collect`: (course, collect's log, its exit code)."""
    course = copy_released(tmp_path_factory.mktemp("collect") / "course")
    inbound = course / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    for student in CLASS:
        run("db", "student", "add", student, cwd=course, check=True, capture_output=True)
    honest = hand_in(inbound, "honest", stamp(datetime.timedelta(seconds=5)))
    hand_in(inbound, "within_slack", stamp(datetime.timedelta(seconds=45)))
    hand_in(inbound, "late_bytes", stamp(datetime.timedelta(hours=2)))  # its files were written now
    (hand_in(inbound, "timestamp_folder", stamp(datetime.timedelta(minutes=1)), timestamp=False)
     / "timestamp.txt").mkdir()
    hand_in(inbound, "no_secret", stamp(datetime.timedelta(minutes=1)), secret=None)
    hand_in(inbound, "empty_secret", stamp(datetime.timedelta(minutes=1)), secret=" \n")
    time.sleep(0.1)  # a copy is written after its original, by more than the kernel's clock tick
    hand_in(inbound, "copied_secret", stamp(datetime.timedelta(minutes=1)),  # read from honest's cache
            secret=(honest / "submission_secret.txt").read_text())
    plant(leftovers(course / "submitted"))
    result = run("collect", ASSIGNMENT, cwd=course, capture_output=True, text=True)
    return course, result.stdout + result.stderr, result.returncode


def leftovers(folder: Path) -> dict[str, Path]:
    """Working folders of earlier collects in `folder`: one whose process was killed part-way through replacing
    a student's hand-in, one of a collect still running (this process)."""
    namespace, pid = scratch.pid_namespace(), os.getpid()
    return {"killed": folder / f"{scratch.COLLECTING}{namespace}-{2 ** 22 + 1}-1-k1ll3d",
            "running": folder / f"{scratch.COLLECTING}{namespace}-{pid}-{start_ticks(pid)}-runn1ng"}


def plant(folders: dict[str, Path]) -> None:
    for path in folders.values():
        (path / "replaced").mkdir(parents=True)
        (path / "replaced" / "01_worked_example.ipynb").write_bytes((WORK / "01_worked_example.ipynb").read_bytes())


def refusals(course: Path) -> dict[str, str]:
    return {r["student"]: r["why"] for r in json.loads((course / "refused" / f"{ASSIGNMENT}.json").read_text())}


def submitted(course: Path, student: str) -> Path:
    return course / "submitted" / student / ASSIGNMENT


def test_each_hand_in_nbgraders_submit_would_not_write_is_refused_by_name(collected):
    course, log, code = collected
    assert code == 0, log[-3000:]
    assert refusals(course) == {
        "timestamp_folder": "its timestamp.txt is a folder, not the file nbgrader's submit writes",
        "no_secret": "it holds no submission_secret.txt (nbgrader's submit writes one)",
        "empty_secret": "its submission_secret.txt is empty",
        "copied_secret": "its submission secret is honest's, handed in earlier (copied from their files: its "
                         "feedback would replace theirs)"}
    for student, why in refusals(course).items():
        assert f"(for {student}): {why}" in log
        assert not submitted(course, student).exists()


def test_the_rest_of_the_class_is_collected_whole(collected):
    course, _, _ = collected
    for student in ("honest", "within_slack", "late_bytes"):
        for notebook in WORK.glob("*.ipynb"):
            assert (submitted(course, student) / notebook.name).read_bytes() == notebook.read_bytes()


def test_a_hand_in_is_stamped_with_its_bytes_time_when_it_claims_an_earlier_one_past_the_slack(collected):
    course, log, _ = collected
    name = next(p.name for p in (course / "exchange" / COURSE_ID / "inbound").iterdir() if p.name.startswith("late"))
    claimed = name.split("+")[2]
    kept = (submitted(course, "late_bytes") / "timestamp.txt").read_text()
    assert kept > claimed and f"claims {claimed[:19]}" in log  # the files' last change, with a warning
    folder = course / "exchange" / COURSE_ID / "inbound" / name
    changed = max(p.stat().st_ctime for p in [folder, *folder.iterdir()])
    assert kept == datetime.datetime.fromtimestamp(changed, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def test_a_claim_within_the_clock_slack_is_kept(collected):
    course, _, _ = collected
    inbound = course / "exchange" / COURSE_ID / "inbound"
    for student in ("honest", "within_slack"):  # 60 s in course.toml: 5 s and 45 s before their files
        name = next(p.name for p in inbound.iterdir() if p.name.startswith(f"{student}+"))
        assert (submitted(course, student) / "timestamp.txt").read_text() == name.split("+")[2]


@pytest.mark.skipif(os.geteuid() != 0, reason="fills a file system of its own, mounted in a namespace: root only")
def test_a_copy_the_course_cannot_hold_is_named_and_the_rest_collected(copy_released, tmp_path):
    import subprocess

    course = copy_released(tmp_path / "course")
    inbound = course / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    for student in ("ann", "bo"):
        run("db", "student", "add", student, cwd=course, check=True, capture_output=True)
        hand_in(inbound, student, stamp(datetime.timedelta(minutes=1)))
    (course / "submitted").mkdir()
    size = sum(p.stat().st_size for p in WORK.glob("*.ipynb")) * 3 // 2  # room for one hand-in, not two
    script = (f'mount -t tmpfs -o size={size} tmpfs "$0" && exec "$@"')
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                             str(course / "submitted"), *command("collect", ASSIGNMENT)],
                            cwd=course, env=environment(), capture_output=True, text=True)
    log = result.stdout + result.stderr
    assert result.returncode != 0 and "could not be copied into the course" in log, log[-3000:]
    assert "Collecting submission: ann" in log and f"bo+{ASSIGNMENT}+" in log  # ann collected, bo's named


def test_a_collect_of_one_student_keeps_the_rest_of_the_class_refusals(collected):
    course, _, _ = collected
    before = refusals(course)
    result = run("collect", ASSIGNMENT, "--student=no_secret", cwd=course, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert refusals(course) == before  # the class report still lists every refusal


def test_a_collect_of_one_student_refuses_a_secret_copied_from_a_classmate_it_does_not_collect(collected):
    """The copy is compared with every hand-in in the exchange, not only the student's own."""
    course, _, _ = collected
    result = run("collect", ASSIGNMENT, "--student=copied_secret", cwd=course, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "its submission secret is honest's" in refusals(course)["copied_secret"]
    assert not submitted(course, "copied_secret").exists()


def test_named_hand_ins_alone_are_collected_and_every_other_refusal_is_kept(copy_released, tmp_path):
    """`--TrustedCollect.hand_ins`, as the grading service collects: those hand-ins, each for its student; an
    older hand-in of the same student is not taken instead, nor are other students'."""
    course = copy_released(tmp_path / "course")
    inbound = course / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    for student in ("ann", "bo", "cy"):
        run("db", "student", "add", student, cwd=course, check=True, capture_output=True)
    older = hand_in(inbound, "ann", stamp(datetime.timedelta(minutes=2)))
    newer = hand_in(inbound, "ann", stamp(datetime.timedelta(minutes=1)), secret=None)  # refused: no secret
    cy = hand_in(inbound, "cy", stamp(datetime.timedelta(minutes=1)), secret=None)
    hand_in(inbound, "bo", stamp(datetime.timedelta(minutes=1)))
    run("collect", ASSIGNMENT, "--student=cy", cwd=course, check=True, capture_output=True)
    result = run("collect", ASSIGNMENT, "--update", f"--TrustedCollect.hand_ins={newer.name}", cwd=course,
                 capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not submitted(course, "ann").exists() and not submitted(course, "bo").exists()
    assert {r["hand_in"] for r in json.loads((course / "refused" / f"{ASSIGNMENT}.json").read_text())} == \
        {newer.name, cy.name}
    run("collect", ASSIGNMENT, "--update", f"--TrustedCollect.hand_ins={older.name}", cwd=course, check=True,
        capture_output=True)
    assert (submitted(course, "ann") / "submission_secret.txt").read_text() == \
        (older / "submission_secret.txt").read_text()


def test_collecting_a_class_reads_each_hand_ins_name_a_bounded_number_of_times(copy_released, tmp_path, monkeypatch):
    """No work per hand-in grows with the class (issue 38): a copied secret is found through one index of the
    exchange's secrets, not by reading every other hand-in's name for each student collected (a class of
    1,500 cost 0.068 CPU s a student to collect, one of 100 0.021)."""
    import kit.hand_in.collect as collect

    course = copy_released(tmp_path / "course")
    inbound = course / "exchange" / COURSE_ID / "inbound"
    inbound.mkdir(parents=True)
    students = [f"student{i:02d}" for i in range(40)]
    (course / "roster.csv").write_text("id\n" + "\n".join(students) + "\n")
    run("db", "student", "import", "roster.csv", cwd=course, check=True, capture_output=True)
    for student in students:
        hand_in(inbound, student, stamp(datetime.timedelta(minutes=1)))
    names_read = []
    parse_name = collect.parse_name
    monkeypatch.setattr(collect, "parse_name", lambda *args: names_read.append(args) or parse_name(*args))
    run_here("collect", ASSIGNMENT, cwd=course)
    assert all(submitted(course, student).is_dir() for student in students)
    assert len(names_read) <= 3 * len(students), f"{len(names_read)} names read for {len(students)} hand-ins"


def test_what_a_killed_collect_left_is_removed_and_a_running_ones_kept(collected):
    course, _, _ = collected
    working = [path for path in (course / "submitted").iterdir() if path.name.startswith(scratch.COLLECTING)]
    assert working == [leftovers(course / "submitted")["running"]]  # the killed one's removed by the collect
