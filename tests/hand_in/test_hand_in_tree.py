"""Does reading a hand-in refuse everything but its owner's regular files and folders, within the limits?

kit/hand_in/tree.py on hand-ins made in a temporary folder by this account (any account can run these;
tests/hand_in/test_hand_in.py runs the same attacks across real accounts). Each refusal must name its cause,
and an honest hand-in must come out byte for byte.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kit.hand_in.tree import Limits, Refused, copy_hand_in

ME = {os.geteuid()}
LIMITS = Limits(max_file_bytes=1 << 20, max_submission_bytes=3 << 20, max_entries=50, max_depth=4)


@pytest.fixture
def inbound(tmp_path) -> Path:
    folder = tmp_path / "inbound"
    (folder / "hand-in" / "judge").mkdir(parents=True)
    (folder / "hand-in" / "01.ipynb").write_text('{"cells": []}')
    (folder / "hand-in" / "judge" / "policy.py").write_text("x = 1\n")
    return folder


def refusal(inbound: Path, tmp_path: Path, owners=ME, limits=LIMITS, name="hand-in") -> str:
    with pytest.raises(Refused) as refused:
        copy_hand_in(inbound, name, owners, limits, tmp_path / "copy")
    return str(refused.value)


def test_an_honest_hand_in_is_copied_byte_for_byte_and_ignored_names_are_left_out(inbound, tmp_path):
    (inbound / "hand-in" / "__pycache__").mkdir()
    (inbound / "hand-in" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    copied = copy_hand_in(inbound, "hand-in", ME, LIMITS, tmp_path / "copy", ignored=lambda n: n == "__pycache__")
    assert (copied.files, copied.bytes) == (2, len('{"cells": []}') + len("x = 1\n"))
    assert (tmp_path / "copy" / "judge" / "policy.py").read_text() == "x = 1\n"
    assert not (tmp_path / "copy" / "__pycache__").exists()


@pytest.mark.parametrize("where", ["01.ipynb", "judge/policy.py"])
def test_a_symbolic_link_at_any_depth_is_refused(inbound, tmp_path, where):
    secret = tmp_path / "solution.ipynb"
    secret.write_text("the answer")
    (inbound / "hand-in" / where).unlink()
    (inbound / "hand-in" / where).symlink_to(secret)
    assert f"{where} is a symbolic link" in refusal(inbound, tmp_path)


def test_a_hand_in_folder_that_is_itself_a_symbolic_link_is_refused(inbound, tmp_path):
    (inbound / "linked").symlink_to(inbound / "hand-in")
    assert "a symbolic link, not a folder" in refusal(inbound, tmp_path, name="linked")


def test_a_named_pipe_is_refused_without_ever_being_opened(inbound, tmp_path):
    os.mkfifo(inbound / "hand-in" / "02.ipynb")
    assert "02.ipynb is a named pipe" in refusal(inbound, tmp_path)  # opening it would block: this returns


def test_a_hard_link_to_a_file_elsewhere_is_refused(inbound, tmp_path):
    os.link(inbound / "hand-in" / "01.ipynb", tmp_path / "elsewhere")
    assert "hard link" in refusal(inbound, tmp_path)


def test_a_sparse_file_counts_at_its_apparent_size(inbound, tmp_path):
    with open(inbound / "hand-in" / "big.bin", "wb") as f:
        f.truncate(1 << 30)
    assert "big.bin is 1024.0 MiB, over the limit" in refusal(inbound, tmp_path)


def test_files_each_under_the_limit_but_too_many_together_are_refused(inbound, tmp_path):
    for i in range(4):
        (inbound / "hand-in" / f"part{i}.bin").write_bytes(b"x" * (1 << 20))
    assert "the limit per hand-in" in refusal(inbound, tmp_path)


def test_names_with_control_characters_are_refused_and_shown_escaped(inbound, tmp_path):
    (inbound / "hand-in" / "01.ipynb\n[CollectApp | INFO] Collecting submission: ann").write_text("x")
    reason = refusal(inbound, tmp_path)
    assert "control characters" in reason and "\n" not in reason and "\\n" in reason


def test_a_file_owned_by_another_account_is_refused(inbound, tmp_path):
    assert "belongs to" in refusal(inbound, tmp_path, owners={os.geteuid() + 1})


def test_folders_too_deep_or_too_many_entries_are_refused(inbound, tmp_path):
    deep = inbound / "hand-in" / "a" / "b" / "c" / "d" / "e"
    deep.mkdir(parents=True)
    assert "folders deep" in refusal(inbound, tmp_path)
    for i in range(60):
        (inbound / "hand-in" / f"f{i}").write_text("")
    assert "more than 50 files" in refusal(inbound, tmp_path, limits=Limits(1 << 20, 3 << 20, 50, 10))


def test_a_file_that_grows_while_it_is_copied_stops_at_the_limit(inbound, tmp_path):
    """The owner can append once the collect has opened the file: never more than the limit is read."""
    growing = inbound / "hand-in" / "growing.bin"
    growing.write_bytes(b"x" * 1000)
    inode = growing.stat().st_ino
    limits = Limits(max_file_bytes=200_000, max_submission_bytes=3 << 20)
    start, stop = threading.Event(), threading.Event()

    def append() -> None:
        start.wait()
        with open(growing, "ab") as f:
            while not stop.is_set():
                f.write(b"y" * 65536)
                f.flush()
                stop.wait(0.001)

    real_read = os.read

    def slow_read(fd, n):  # its first read starts the owner appending and waits until the file passes its limit
        if os.fstat(fd).st_ino == inode and not start.is_set():
            start.set()
            while growing.stat().st_size <= limits.max_file_bytes:
                stop.wait(0.01)
        return real_read(fd, n)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "read", slow_read)
            reason = refusal(inbound, tmp_path, limits=limits)
    finally:
        start.set()
        stop.set()
        writer.join()
    assert "grew past the limit" in reason
    assert (tmp_path / "copy" / "growing.bin").stat().st_size <= limits.max_file_bytes


def test_an_id_is_handed_in_by_its_own_account_or_the_one_course_toml_maps_it_to(tmp_path):
    import dataclasses
    import pwd

    from kit.course import course
    from kit.hand_in.accounts import account_map, owners_of

    me = pwd.getpwuid(os.geteuid()).pw_name
    (tmp_path / "accounts.csv").write_text(f"id,account\ns123,{me}\n")
    shared = dataclasses.replace(course(), exchange_root="/srv/nbgrader/exchange", accounts="accounts.csv")
    accounts = account_map(shared, tmp_path)
    assert owners_of("s123", shared, accounts) == owners_of(me, shared, {}) == ME
    with pytest.raises(Refused, match="no account 'nobody-here-9'"):
        owners_of("nobody-here-9", shared, accounts)
    assert owners_of("s123", course(), {}) == ME  # a course's own exchange: every hand-in is the instructor's


def test_a_file_replaced_by_a_link_while_it_is_copied_is_refused_and_again_on_a_rerun(inbound, tmp_path):
    """The owner swaps a file for a link between the check and the copy (ELOOP on opening it): that hand-in
    is refused, never a crash, and so is it on the next collect, by its link."""
    notebook = inbound / "hand-in" / "01.ipynb"
    real_open = os.open

    def swapping_open(path, flags, *args, **kwargs):
        if path == "01.ipynb" and not flags & os.O_DIRECTORY and not notebook.is_symlink():
            notebook.unlink()
            notebook.symlink_to(tmp_path / "elsewhere")
        return real_open(path, flags, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "open", swapping_open)
        assert "01.ipynb changed while it was read" in refusal(inbound, tmp_path)
    assert "01.ipynb is a symbolic link" in refusal(inbound, tmp_path / "again")


def rewriting_when(read_of: Path, rewritten: Path):
    """os.read that rewrites `rewritten` in place (same inode, as an editor saving over it may) on the first
    read of the file `read_of`."""
    real_read, inode, done = os.read, read_of.stat().st_ino, []

    def read(fd, n):
        if not done and os.fstat(fd).st_ino == inode:
            done.append(True)
            with open(rewritten, "r+b") as f:
                f.write(b"LATE")
        return real_read(fd, n)
    return read


@pytest.mark.parametrize("rewritten", ["01.ipynb", "judge/policy.py"])
def test_a_file_rewritten_in_place_while_the_hand_in_is_copied_is_refused(inbound, tmp_path, rewritten):
    """While its own bytes are read, or after they were, before the copy of the hand-in ends: either way the
    copy would not be the hand-in of one moment, and its time could be the time before the change."""
    reading = inbound / "hand-in" / "judge" / "policy.py"  # copied last
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "read", rewriting_when(reading, inbound / "hand-in" / rewritten))
        assert "changed while it was read" in refusal(inbound, tmp_path)


def test_the_time_of_a_hand_in_is_the_last_change_of_the_bytes_copied(inbound, tmp_path):
    notebook = inbound / "hand-in" / "01.ipynb"
    with open(notebook, "r+b") as f:  # rewritten in place after the rest, before the collect
        f.write(b"{ ")
    copied = copy_hand_in(inbound, "hand-in", ME, LIMITS, tmp_path / "copy")
    assert copied.changed_at == notebook.stat().st_ctime
    assert (tmp_path / "copy" / "01.ipynb").read_bytes() == notebook.read_bytes()


def test_many_folders_are_copied_with_few_descriptors_open(inbound, tmp_path):
    """1,500 empty folders: a hand-in holds a descriptor per folder it is inside, not per folder it has."""
    import resource

    for i in range(1500):
        (inbound / "hand-in" / "empty" / f"{i:04d}").mkdir(parents=True)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    allowed = len(os.listdir("/proc/self/fd")) + 16
    resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))
    try:
        copied = copy_hand_in(inbound, "hand-in", ME, Limits(1 << 20, 3 << 20, max_entries=2000, max_depth=4),
                              tmp_path / "copy")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert copied.files == 2 and len(list((tmp_path / "copy" / "empty").iterdir())) == 1500


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file: tests/hand_in/test_hand_in.py collects as an ordinary "
                                              "instructor account")
def test_a_file_the_collecting_account_cannot_read_is_refused_by_name(inbound, tmp_path):
    (inbound / "hand-in" / "01.ipynb").chmod(0)
    assert "01.ipynb cannot be read by" in refusal(inbound, tmp_path)
