"""Do nbgrader's own commands, run as README shows them, do what `make demo` does? (issue 21, part 2)

An unreadable notebook costs its own points only, one handed in under another name is graded under its own,
the release records the due date the late penalty needs, and a command works from .venv/bin/ with no
environment activated (nbgrader starts `alembic`).
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

from autograder.grade import REPORT_FILE
from autograder.handed_in import set_aside, under_their_names
from autograder.source_assignment import SourceAssignment
from kit import nbgrader_cli
from kit.course import ASSIGNMENT, COURSE_ID, course, db_url
from kit.release import register_in_gradebook
from kit.report.build import course_directory, write_report
from kit.report.collect import collect
from kit.report.page import render
from kit.report.summary import summary
from tests.shared.course_copy import EXAMPLE, copy_course, run_nbgrader

NBGRADER = Path(sys.executable).parent / "nbgrader"
NOT_ACTIVATED = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # this environment's tools nowhere on PATH


def test_nbgrader_autograde_sets_an_unreadable_notebook_aside_grades_a_renamed_one_and_the_rest(tmp_path,
                                                                                              copy_released):
    """gus's notebook 03 is not valid JSON, and deep's is JSON nested too deeply for Python to read: stock
    nbgrader would fail gus and delete his autograded folder, and deep's would stop the whole class. ren handed
    in ada's notebook 03 as a browser's download names it, and notebook 04 twice under other names: stock nbgrader
    scores both as missing and never says why. wen saved notebook 02 over notebook 01: each of her pages says so."""
    course = copy_released(tmp_path / "course")
    for student in ("gus", "deep"):
        shutil.copytree(EXAMPLE / "gus" / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
    (course / "submitted" / "deep" / ASSIGNMENT / "03_softmax_and_mix.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    ren = course / "submitted" / "ren" / ASSIGNMENT
    shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, ren)
    (ren / "03_softmax_and_mix.ipynb").rename(ren / "03_softmax_and_mix (1).ipynb")
    shutil.copy(ren / "04_heads.ipynb", ren / "04_heads-Copy1.ipynb")
    (ren / "04_heads.ipynb").rename(ren / "<b>heads<b> & co.ipynb")  # a name of markup: shown as text
    wen = shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / "wen" / ASSIGNMENT)
    shutil.copy(wen / "02_scores_and_scaling.ipynb", wen / "01_worked_example.ipynb")  # saved over the wrong file
    (wen / "my_notes.py").write_text("SEEN = True\n")  # a module of her own, and the release's workbook.py changed
    (wen / "workbook.py").write_text((course / "source" / ASSIGNMENT / "workbook.py").read_text() + "# mine\n")
    latin = os.fsencode(wen)  # names in Latin-1 (an archive unpacked under another encoding): nbgrader failed wen
    shutil.copy(wen / "02_scores_and_scaling.ipynb", latin + b"/02 \xe9t\xe9.ipynb")  # on the gradebook's UTF-8,
    (Path(os.fsdecode(latin + b"/r\xe9sum\xe9.py"))).write_text("X = 1\n")  # her pages on the page's
    mix = json.loads((wen / "03_softmax_and_mix.ipynb").read_text())  # nbgrader metadata broken by hand: nbgrader's
    at = next(i for i, c in enumerate(mix["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == "softmax")
    mix["cells"][at]["metadata"]["nbgrader"], mix["cells"][at + 1]["metadata"]["nbgrader"] = "softmax", None
    (wen / "03_softmax_and_mix.ipynb").write_text(json.dumps(mix))  # DeduplicateIds stopped her autograde
    exc = shutil.copytree(ren, course / "submitted" / "exc" / ASSIGNMENT)  # renamed notebooks ...
    (exc / "02_scores_and_scaling.ipynb").write_text("{")  # ... and an unreadable one
    handed_in = sorted(p.name for p in exc.iterdir())
    excluded = run_nbgrader(course, "autograde", ASSIGNMENT, "--force", "--CourseDirectory.student_id_exclude=exc",
                            text=True)
    assert sorted(p.name for p in exc.iterdir()) == handed_in and "submitted/exc" not in excluded.stderr
    assert not (course / "autograded" / "exc").exists()
    for student, why in (("gus", "not valid JSON"), ("deep", "nested too deeply")):
        submitted = course / "submitted" / student / ASSIGNMENT
        unreadable = [p.name for p in submitted.iterdir() if p.name.endswith(".unreadable")]
        assert unreadable == ["03_softmax_and_mix.ipynb.unreadable"]
        assert why in set_aside(submitted)["03_softmax_and_mix.ipynb"]  # what the class report says
        assert (course / "autograded" / student / ASSIGNMENT / REPORT_FILE).exists()
        with Gradebook(db_url(course), COURSE_ID) as gb:
            scores = {nb.name: nb.score for nb in gb.find_submission(ASSIGNMENT, student).notebooks}
        assert scores["03_softmax_and_mix"] == 0 and scores["01_worked_example"] > 0
    with Gradebook(db_url(course), COURSE_ID) as gb:
        ren_scores = {nb.name: (nb.score, nb.max_score) for nb in gb.find_submission(ASSIGNMENT, "ren").notebooks}
    assert ren_scores["03_softmax_and_mix"][0] == ren_scores["03_softmax_and_mix"][1] > 0
    assert ren_scores["04_heads"][0] == 0  # two copies under other names: which one is the student's to say
    with Gradebook(db_url(course), COURSE_ID) as gb:
        mixed = next(nb for nb in gb.find_submission(ASSIGNMENT, "wen").notebooks if nb.name == "03_softmax_and_mix")
        assert mixed.score == mixed.max_score > 0  # her answer's code graded as a cell of her own
    assert (ren / "03_softmax_and_mix (1).ipynb").exists() and not (ren / "04_heads.ipynb").exists()
    notes = {
        "03_softmax_and_mix.ipynb": "handed in as '03_softmax_and_mix (1).ipynb': graded under its own name",
        "04_heads.ipynb": "missing: 2 notebooks handed in hold its cells ('04_heads-Copy1.ipynb', '<b>heads<b> & co.ipynb'), "
                          "so none is graded for it: hand in one as 04_heads.ipynb"}
    assert under_their_names(ren, SourceAssignment.of(course / "source" / ASSIGNMENT)) == notes
    results = collect(course_directory(course), ASSIGNMENT)  # the class report names both, for the instructor
    wens = {"02_scores_and_scaling.ipynb": "handed in as '02 \\udce9t\\udce9.ipynb': graded under its own name"}
    assert {s.id: s.renamed for s in results.students if s.renamed} == {"ren": notes, "wen": wens}
    assert "Handed in under another name: 2 (ren, wen)" in summary(results)
    assert all(what in html.unescape(render(results, charts=[])) for what in notes.values())
    run_nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")  # ... and so does each of their pages
    wrong = {"01_worked_example.ipynb": "wrong notebook: it has none of this notebook's exercises (it has",
             "my_notes.py": "copied beside your notebooks for grading, which may import it",
             "workbook.py": "the release's own copy is graded with, not yours: changes to it do not count",
             "r\ufffdsum\ufffd.py": "not copied for grading", "02_scores_and_scaling.ipynb": "handed in as '02 "}
    for student, told in (("ren", notes), ("gus", {"03_softmax_and_mix.ipynb": "notebook unreadable: not valid JSON"}),
                          ("wen", wrong)):
        pages = sorted((course / "feedback" / student / ASSIGNMENT).glob("0*.html"))  # each notebook's page
        assert len(pages) == (9 if student == "wen" else 8)  # all but the notebook not graded
        for page in pages:
            shown = page.read_text()
            assert "<b>heads" not in shown and all(f"{nb}: {what}" in html.unescape(shown) for nb, what in told.items())


def test_a_hand_in_holding_links_pipes_or_a_timestamp_that_is_not_a_time_is_left_out_by_name_and_reported(
        tmp_path, copy_released):
    """Hand-ins copied into submitted/ by hand (collect writes a timestamp that reads, and takes regular files and
    folders alone): the class report and the export say so. A
    timestamp.txt that is not a time: stock nbgrader fails the student with an AttributeError's traceback that never
    names the file, the class report listed them among those who did not hand in, and the export gave them 0 without
    a word. Links (a zip unpacked with unzip keeps them): nbgrader copied a file of the instructor's that notes.txt
    linked to into the autograded and feedback folders, and graded a notebook linked to the course's solved source
    notebook as the student's own, full marks; a named pipe (a tar makes them) failed the student with a traceback.
    A folder named in Latin-1 (an archive unpacked under another encoding): nbgrader failed on the gradebook's
    UTF-8, and the class report on the page's. A student id that is a glob pattern ([ab]da): nbgrader graded ada's
    folder under it."""
    course = copy_released(tmp_path / "course")
    secret = tmp_path / "instructors_own.txt"
    secret.write_text("the instructor's own words\n")
    for student in ("ada", "tim", "una", "lin", "sol", "pip"):
        shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / student / ASSIGNMENT)
    (course / "submitted" / "tim" / ASSIGNMENT / "timestamp.txt").write_bytes(b"yesterday-ish\n")
    (course / "submitted" / "una" / ASSIGNMENT / "timestamp.txt").write_bytes(b"\xff\xfe 12:00")
    (course / "submitted" / "lin" / ASSIGNMENT / "notes.txt").symlink_to(secret)
    os.mkfifo(course / "submitted" / "pip" / ASSIGNMENT / "answers")  # from a tar: nbgrader's copy raises at a pipe
    nil = course / "submitted" / "nil" / ASSIGNMENT  # a hand-in of no notebook: nothing to grade, nothing awaited
    nil.mkdir(parents=True)
    shutil.copy(EXAMPLE / "ada" / ASSIGNMENT / "timestamp.txt", nil)
    solved = course / "submitted" / "sol" / ASSIGNMENT / "03_softmax_and_mix.ipynb"
    solved.unlink()
    latin = Path(os.fsdecode(os.fsencode(course / "submitted") + b"/j\xf6rg"))  # 'j\udcf6rg' to Python
    shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, latin / ASSIGNMENT)
    pattern = shutil.copytree(EXAMPLE / "gus" / ASSIGNMENT, course / "submitted" / "[ab]da" / ASSIGNMENT)  # ada's too
    broken = shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / "bea" / ASSIGNMENT)
    for notebook in broken.glob("*.ipynb"):  # every notebook unreadable: nbgrader said only "No notebooks were matched"
        notebook.write_text("{")
    solved.symlink_to(course / "source" / ASSIGNMENT / "03_softmax_and_mix.ipynb")
    graded = nbgrader_cli.run("autograde", ASSIGNMENT, cwd=course, capture_output=True, text=True)
    assert graded.returncode != 0
    assert "tim's attention is left out: " in graded.stderr and "holds 'yesterday-ish', which is not a time" in graded.stderr
    assert "una's attention is left out: " in graded.stderr and "which is not a time" in graded.stderr
    assert (f"lin's attention is left out: it holds what is neither a file nor a folder, which is never graded or "
            f"copied (notes.txt: a link to {secret})") in graded.stderr
    assert "sol's attention is left out: it holds what is neither" in graded.stderr
    assert "rg's attention is left out: the name of its student's folder is not UTF-8 text" in graded.stderr
    assert "[ab]da's attention is left out: its student id '[ab]da' holds *, ? or [" in graded.stderr
    assert ("bea's attention is left out: none of its notebooks can be read, so none is graded (each is kept as "
            "<name>.ipynb.unreadable): 01_worked_example.ipynb: notebook unreadable: not valid JSON") in graded.stderr
    assert "03_softmax_and_mix.ipynb: a link to " in graded.stderr and "answers: a named pipe" in graded.stderr
    assert "Traceback" not in graded.stderr and "AttributeError" not in graded.stderr
    assert sorted(p.name for p in (course / "autograded").iterdir()) == ["ada"]
    assert not any(secret.read_bytes() in p.read_bytes() for p in course.rglob("*") if p.is_file() and not p.is_symlink())
    results = collect(course_directory(course), ASSIGNMENT)
    awaiting = ["[ab]da", "bea", "j\udcf6rg", "lin", "pip", "sol", "tim", "una"]
    assert [s.id for s in results.students] == ["ada"] and results.awaiting == awaiting
    assert results.not_submitted == []  # they handed in: not among those who did not
    page, said = write_report(course_directory(course), ASSIGNMENT)
    assert "1 students submitted, 8 handed in and not graded yet" in said
    assert "8 handed in and not graded yet ([ab]da, bea, j\ufffdrg, lin, pip, sol, tim, una)" in html.unescape(page.read_text())
    exported = run_nbgrader(course, "export", "--to", "grades.csv", text=True)
    named = ["[ab]da", "bea", "j\\udcf6rg", *awaiting[3:]]  # as Python writes an undecodable name to its error stream
    assert f"Handed in and never graded: {', '.join(f'{s} (attention)' for s in named)}: this file gives" \
        in exported.stderr
    # As each message says: the timestamp deleted (graded as on time), the file itself in place of each link.
    for student in ("tim", "una"):
        (course / "submitted" / student / ASSIGNMENT / "timestamp.txt").unlink()
    (course / "submitted" / "lin" / ASSIGNMENT / "notes.txt").unlink()
    (course / "submitted" / "pip" / ASSIGNMENT / "answers").unlink()
    solved.unlink()
    shutil.copy(EXAMPLE / "bo" / ASSIGNMENT / solved.name, solved)  # bo's, softmax over the wrong axis
    latin.rename(latin.with_name("jörg"))
    shutil.rmtree(pattern.parent)
    shutil.rmtree(broken.parent)
    run_nbgrader(course, "autograde", ASSIGNMENT)
    with Gradebook(db_url(course), COURSE_ID) as gb:
        scores = {s: gb.find_submission(ASSIGNMENT, s).score for s in ["ada", "jörg", *awaiting[3:]]}
    assert scores["tim"] == scores["una"] == scores["lin"] == scores["pip"] == scores["jörg"] == scores["ada"] > \
        scores["sol"] > 0
    assert "never graded" not in run_nbgrader(course, "export", "--to", "grades.csv", text=True).stderr


def test_the_release_records_the_due_date_in_the_gradebook(tmp_path):
    course_root = copy_course(tmp_path / "course")
    register_in_gradebook(course_root)
    with Gradebook(db_url(course_root), COURSE_ID) as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate == parse_utc(course(course_root).duedate)


def test_a_student_is_added_from_dot_venv_without_an_activated_environment_on_a_new_course(tmp_path):
    course = copy_course(tmp_path / "course")
    assert not (course / "gradebook.db").exists()
    added = subprocess.run([NBGRADER, "db", "student", "add", "zoe", "--first-name=Zoe"], cwd=course,
                           env=NOT_ACTIVATED, capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stderr[-2000:]
    with Gradebook(db_url(course), COURSE_ID) as gb:
        assert gb.find_student("zoe").first_name == "Zoe"


def test_autograde_and_feedback_from_a_subfolder_with_a_relative_root_read_the_courses_own_source(tmp_path,
                                                                                                 copy_released):
    """An instructor in source/ who runs `nbgrader autograde attention --CourseDirectory.root=..`: nbgrader
    standardises its own root, then converts from the course root, where the kit read the root from the
    configuration again and took `..` from there: the source notebooks were looked for beside the course, and
    every notebook failed. Both commands grade and write pages as from the course root."""
    course = copy_released(tmp_path / "course")
    shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / "ada" / ASSIGNMENT)
    run_nbgrader(course, "db", "student", "add", "ada")
    for step in ("autograde", "generate_feedback"):
        ran = nbgrader_cli.run(step, ASSIGNMENT, "--CourseDirectory.root=..", cwd=course / "source",
                               capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads((course / "autograded" / "ada" / ASSIGNMENT / REPORT_FILE).read_text())
    assert report["cells"] and report["problems"] == {}, report["problems"]
    assert sum(c["earned"] for c in report["cells"].values()) > 0
    pages = {page.name for page in (course / "feedback" / "ada" / ASSIGNMENT).glob("*.html")}
    assert {f"{notebook.stem}.html" for notebook in (course / "source" / ASSIGNMENT).glob("*.ipynb")} <= pages


def test_autograde_against_a_gradebook_without_the_assignment_stops_before_touching_a_folder(tmp_path,
                                                                                          copy_released):
    """KIT_DB_URL naming a new, empty gradebook (a typo in its path): nbgrader said "No assignment" for each
    student only after removing their autograded folder, grading report and all. autograde now stops first, names
    the gradebook and what to do, and every folder is as it was."""
    course = copy_released(tmp_path / "course")
    shutil.copytree(EXAMPLE / "ada" / ASSIGNMENT, course / "submitted" / "ada" / ASSIGNMENT)
    run_nbgrader(course, "db", "student", "add", "ada")
    graded = course / "autograded" / "ada" / ASSIGNMENT
    graded.mkdir(parents=True)
    (graded / REPORT_FILE).write_text("{}")
    empty = f"sqlite:///{tmp_path / 'gradebok.db'}"
    ran = nbgrader_cli.run("autograde", ASSIGNMENT, "--force", cwd=course, env={"KIT_DB_URL": empty},
                           capture_output=True, text=True)
    assert ran.returncode != 0
    assert f"No assignment '{ASSIGNMENT}' in the gradebook {empty}, so nothing was graded and no folder touched" \
        in ran.stderr, ran.stderr[-3000:]
    assert (graded / REPORT_FILE).read_text() == "{}"
