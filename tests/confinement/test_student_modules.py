"""Which modules handed in beside the notebooks does the grader import from, as JupyterLab would?

The grading itself (a notebook answering with `from my_attention import softmax`, a numpy.py that would take
memory before the mark) is in test_adversarial.py; the cluster ships the same modules (test_cluster.py).
"""

from __future__ import annotations

import os

from autograder.student_modules import MODULE_BYTES, MODULES, copy_student_modules, module_notes, student_modules
from kit.notebooks import ROOT

RELEASE = ROOT / "source" / "attention"


def test_the_students_own_modules_are_taken_and_never_a_copy_of_the_releases(tmp_path):
    handed_in = tmp_path / "hand_in"
    handed_in.mkdir()
    for name in ("my_attention.py", "numpy.py", "workbook.py", "explorer.py", "judge.py", "my-notes.py"):
        (handed_in / name).write_text(f"# {name}\n")
    assert sorted(student_modules(handed_in, RELEASE)) == ["my_attention.py", "numpy.py"]


def test_links_pipes_and_folders_are_not_modules_and_nothing_is_read_through_them(tmp_path):
    handed_in, elsewhere = tmp_path / "hand_in", tmp_path / "instructors_own.py"
    handed_in.mkdir()
    elsewhere.write_text("SECRET = 1\n")
    (handed_in / "linked.py").symlink_to(elsewhere)
    os.mkfifo(handed_in / "piped.py")  # opened without waiting for a writer
    (handed_in / "folder.py").mkdir()
    (handed_in / "plain.py").write_text("X = 1\n")
    assert student_modules(handed_in, RELEASE) == {"plain.py": b"X = 1\n"}


def test_modules_past_the_room_left_are_not_copied_and_smaller_ones_after_them_are(tmp_path):
    handed_in, prepared = tmp_path / "hand_in", tmp_path / "prepared"
    handed_in.mkdir(), prepared.mkdir()
    (handed_in / "a_third.py").write_bytes(b"#" * (MODULE_BYTES // 3))
    (handed_in / "b_huge.py").write_bytes(b"#" * MODULE_BYTES)
    (handed_in / "c_small.py").write_text("Y = 2\n")
    assert copy_student_modules(handed_in, RELEASE, prepared) == ["a_third.py", "c_small.py"]
    assert sorted(p.name for p in prepared.iterdir()) == ["a_third.py", "c_small.py"]
    assert (prepared / "c_small.py").read_text() == "Y = 2\n"


def test_no_more_modules_are_taken_than_the_limit(tmp_path):
    for i in range(MODULES + 5):
        (tmp_path / f"m{i:03d}.py").write_text("")
    assert list(student_modules(tmp_path, RELEASE)) == [f"m{i:03d}.py" for i in range(MODULES)]


def test_the_student_is_told_what_became_of_each_module_and_of_a_release_file_they_changed(tmp_path):
    (tmp_path / "mine.py").write_text("X = 1\n")
    (tmp_path / "my-notes.py").write_text("")
    (tmp_path / "huge.py").write_bytes(b"#" * (MODULE_BYTES + 1))
    (tmp_path / "linked.py").symlink_to(tmp_path / "mine.py")
    (tmp_path / "explorer.py").write_bytes((RELEASE / "explorer.py").read_bytes())  # as released: nothing to say
    (tmp_path / "workbook.py").write_text("# changed\n")
    assert module_notes(tmp_path, RELEASE) == {
        "huge.py": "not copied for grading: your modules past 4 MiB in all are not",
        "linked.py": "not copied for grading: it is a link, not the file itself",
        "mine.py": "copied beside your notebooks for grading, which may import it",
        "my-notes.py": "not copied for grading: 'my-notes' is not a name Python can import",
        "workbook.py": "the release's own copy is graded with, not yours: changes to it do not count"}


def test_a_package_handed_in_is_taken_whole_as_jupyterlab_imports_it_and_a_folder_that_is_none_is_not(tmp_path):
    handed_in, prepared, elsewhere = tmp_path / "hand_in", tmp_path / "prepared", tmp_path / "instructors_own"
    (handed_in / "helpers" / "maths").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "__init__.py").write_text("SECRET = 1\n")
    prepared.mkdir()
    (handed_in / "helpers" / "__init__.py").write_text("")
    (handed_in / "helpers" / "core.py").write_text("def softmax(x):\n    return x\n")
    (handed_in / "helpers" / "maths" / "__init__.py").write_text("from .deep import TWO\n")
    (handed_in / "helpers" / "maths" / "deep.py").write_text("TWO = 2\n")
    (handed_in / "helpers" / "notes.txt").write_text("not a module")
    (handed_in / "helpers" / "linked.py").symlink_to(elsewhere / "__init__.py")
    (handed_in / "helpers" / "elsewhere").symlink_to(elsewhere)  # a package by a link: not looked into
    (handed_in / "scratch").mkdir()  # no __init__.py: a folder, not a package
    (handed_in / "scratch" / "try.py").write_text("X = 1\n")
    (handed_in / "judge").mkdir()  # the release's own package: never the student's copy
    (handed_in / "judge" / "__init__.py").write_text("")
    copied = copy_student_modules(handed_in, RELEASE, prepared)
    assert copied == ["helpers/__init__.py", "helpers/core.py", "helpers/maths/__init__.py", "helpers/maths/deep.py"]
    assert (prepared / "helpers" / "maths" / "deep.py").read_text() == "TWO = 2\n"
    assert module_notes(handed_in, RELEASE)["helpers/linked.py"] == \
        "not copied for grading: it is a link, not the file itself"
    assert not any("SECRET" in path.read_text() for path in prepared.rglob("*.py"))


def test_a_hand_in_folder_that_is_gone_has_no_modules(tmp_path):
    """The class report reads the modules of every graded student: one whose submitted folder was removed since."""
    assert student_modules(tmp_path / "removed", RELEASE) == {} and module_notes(tmp_path / "removed", RELEASE) == {}
