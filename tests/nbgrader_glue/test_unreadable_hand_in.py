"""Does a student whose hand-in holds no notebook that can be read learn why, by README's own loop?

Autograde leaves such a hand-in out (it has nothing to grade); `generate_feedback` writes its student a page for
each notebook they handed in, under their own file name, saying why it could not be read, and
`release_feedback` releases them where the student's Fetch Feedback looks
(kit/nbgrader_glue/unreadable_hand_in.py). The pages give way to graded ones once a readable hand-in is
autograded, and take the place of an older hand-in's graded pages.
"""

from __future__ import annotations

import html
import os
import shutil
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import notebook_hash

from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, db_url
from kit.hand_in.page import holds, page_folder, write_page_folder
from kit.hand_in.secret import SECRET
from kit.nbgrader_glue.whole_or_absent import unfinished_mark
from tests.shared.course_copy import EXAMPLE, run_nbgrader

OWN_NAME = "<b>my<b> softmax & mix"  # a name of the student's own, markup to a browser (a file name holds no /)


def _hand_in(course: Path, student: str, work: str, at: str, cut_short: bool = False) -> Path:
    """`work`'s notebooks (an example student's) as `student`'s hand-in at `at`; each cut short if asked."""
    folder = course / "submitted" / student / ASSIGNMENT
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(EXAMPLE / work / ASSIGNMENT, folder)
    (folder / "timestamp.txt").write_text(f"{at}\n")
    (folder / SECRET).write_text(f"secret-of-{student}\n")
    if cut_short:
        (folder / "03_softmax_and_mix.ipynb").rename(folder / f"{OWN_NAME}.ipynb")
        for notebook in folder.glob("*.ipynb"):
            notebook.write_bytes(notebook.read_bytes()[:150])
    return folder


def _pages(course: Path, student: str) -> dict[str, str]:
    folder = course / "feedback" / student / ASSIGNMENT
    return {page.stem: page.read_text() for page in sorted(folder.glob("*.html"))}


def test_each_notebook_of_an_unreadable_hand_in_gets_a_page_saying_why_released_where_its_student_looks(
        tmp_path, copy_released):
    course = copy_released(tmp_path / "course")
    _hand_in(course, "ada", "ada", "2026-12-14 12:00:00.000000 UTC")
    bea = _hand_in(course, "bea", "ada", "2026-12-14 12:05:00.000000 UTC", cut_short=True)
    graded = nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True, text=True)
    assert graded.returncode and "bea's attention is left out: none of its notebooks can be read" in graded.stderr
    written = run_nbgrader(course, "generate_feedback", ASSIGNMENT, text=True)
    assert "bea's attention: none of its notebooks could be read, so nothing was graded" in written.stderr
    pages = _pages(course, "bea")
    assert sorted(pages) == sorted(p.name.removesuffix(".ipynb.unreadable") for p in bea.glob("*.unreadable"))
    assert len(pages) == 9 and OWN_NAME in pages
    mine = pages[OWN_NAME]
    assert OWN_NAME not in mine and html.escape(OWN_NAME) in mine  # the student's file name, never markup
    assert "could not be read, not graded" in mine and "not valid JSON" in mine and "hand in again" in mine
    assert "at 2026-12-14 12:05:00.000000 UTC" in mine and "none of its 9 notebooks could be read" in mine
    assert "points" in _pages(course, "ada")["03_softmax_and_mix"]  # the rest of the class graded as before
    with Gradebook(db_url(course), COURSE_ID) as gradebook:
        try:
            gradebook.find_submission(ASSIGNMENT, "bea")
            raise AssertionError("bea's unreadable hand-in has a grade")
        except MissingEntry:
            pass
    # Run again: left as written, nbgrader's "Skipping existing assignment".
    before = {p.name: p.stat().st_mtime_ns for p in (course / "feedback" / "bea" / ASSIGNMENT).iterdir()}
    again = run_nbgrader(course, "generate_feedback", ASSIGNMENT, text=True)
    assert "Skipping existing assignment" in again.stderr and "(the pages of bea's unreadable hand-in)" in again.stderr
    assert before == {p.name: p.stat().st_mtime_ns for p in (course / "feedback" / "bea" / ASSIGNMENT).iterdir()}
    (course / "exchange").mkdir(mode=0o777)
    run_nbgrader(course, "release_feedback", ASSIGNMENT, text=True)
    released = course / "exchange" / COURSE_ID / "feedback"
    for notebook, page in pages.items():  # the names bea's fetch_feedback looks for
        assert (released / f"{notebook_hash(secret='secret-of-bea' + chr(10), notebook_id=notebook)}.html"
                ).read_text() == page


def test_a_class_whose_only_hand_in_is_unreadable_gets_its_pages_and_the_command_succeeds(tmp_path, copy_released):
    """nbgrader's loop would stop at "No notebooks were matched": the grading service grades one student a round."""
    course = copy_released(tmp_path / "course")
    _hand_in(course, "bea", "bo", "2026-12-14 12:05:00.000000 UTC", cut_short=True)
    nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT, text=True)
    assert len(_pages(course, "bea")) == 9


def test_the_pages_give_way_to_graded_ones_and_take_the_place_of_an_older_hand_ins(tmp_path, copy_released):
    course = copy_released(tmp_path / "course")
    _hand_in(course, "ada", "ada", "2026-12-14 12:00:00.000000 UTC")
    _hand_in(course, "bea", "bo", "2026-12-14 12:05:00.000000 UTC", cut_short=True)
    nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT)
    assert "could not be read" in _pages(course, "bea")[OWN_NAME]
    _hand_in(course, "bea", "bo", "2026-12-14 13:00:00.000000 UTC")  # readable now: bo's work, graded
    run_nbgrader(course, "autograde", ASSIGNMENT)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT)  # no --force: nbgrader's rule, the newer autograde
    graded = _pages(course, "bea")
    assert {p.stem for p in (EXAMPLE / "bo" / ASSIGNMENT).glob("*.ipynb")} <= set(graded) and OWN_NAME not in graded
    assert "softmax over the wrong axis" in graded["03_softmax_and_mix"]
    _hand_in(course, "bea", "bo", "2026-12-14 14:00:00.000000 UTC", cut_short=True)  # then cut short again
    nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT)
    pages = _pages(course, "bea")
    assert OWN_NAME in pages and all("could not be read" in page for page in pages.values())
    assert (course / "feedback" / "bea" / ASSIGNMENT / "timestamp.txt").read_text().startswith("2026-12-14 14:00")


def test_pages_are_written_whole_and_never_hold_what_a_link_in_the_hand_in_points_to(tmp_path):
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    instructors = tmp_path / "instructors_own.txt"
    instructors.write_text("the instructor's own words")
    (submitted / SECRET).symlink_to(instructors)
    (submitted / "timestamp.txt").write_text("2026-12-14 12:00:00 UTC\n")
    made = page_folder(submitted, {"01_worked_example": "<p>why</p>"})
    assert sorted(made) == ["01_worked_example.html", "timestamp.txt"]  # the link's target left out
    output = tmp_path / "feedback" / "bea" / ASSIGNMENT
    output.mkdir(parents=True)
    (output / "01_worked_example.html").write_text("an older hand-in's graded page")
    being_written = output.with_name(f".{output.name}.being-written")  # a killed run's, part-way
    being_written.mkdir()
    (being_written / "half.html").write_text("<p>wh")
    write_page_folder(output, made)
    assert holds(output, made) and not being_written.exists()
    (output / "01_worked_example.html").write_text("changed")
    assert not holds(output, made)


def test_pages_left_unfinished_by_an_interrupted_run_are_written_again(tmp_path, copy_released):
    course = copy_released(tmp_path / "course")
    _hand_in(course, "bea", "bo", "2026-12-14 12:05:00.000000 UTC", cut_short=True)
    nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True)
    run_nbgrader(course, "generate_feedback", ASSIGNMENT)
    output = course / "feedback" / "bea" / ASSIGNMENT
    unfinished_mark(output).touch()  # as an interrupted generate_feedback leaves it
    os.utime(output / f"{OWN_NAME}.html", ns=(0, 0))
    run_nbgrader(course, "generate_feedback", ASSIGNMENT)
    assert not unfinished_mark(output).exists() and (output / f"{OWN_NAME}.html").stat().st_mtime_ns > 0
