"""Does reading a pipe from a process that ran student code stay within its bounds (autograder/bounded_pipe.py)?

Each writer here is a thread of this process, standing for a child: one that
floods one endless line, keeps a line coming past the deadline, sends many
small lines, sends frames cut anywhere or a length that is none, or never
reads what it is sent.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time

import pytest

from autograder.bounded_pipe import CHUNK, BoundedReader, Interrupted, NotAFrame, PastDeadline, TooLong, widen, write_all


WRITERS: list[threading.Thread] = []


@pytest.fixture
def pipe():
    """(read end, write end). Afterwards the read end closes first, so every writer thread stops on a
    broken pipe before the write end closes: none may write into a later test's pipe under a reused fd."""
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        while fd == write_end and WRITERS:
            WRITERS.pop().join(timeout=60)
        with contextlib.suppress(OSError):  # the test may have closed it
            os.close(fd)


def writing(fd: int, chunk: bytes, pause: float = 0.0, times: int | None = None) -> threading.Thread:
    """A thread that writes `chunk` to `fd` (`times` times, or until the pipe breaks), `pause` s apart."""
    def write():
        count = 0
        while times is None or count < times:
            try:
                os.write(fd, chunk)
            except OSError:
                return
            count += 1
            time.sleep(pause)
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    WRITERS.append(thread)
    return thread


def test_lines_come_back_whole_however_they_were_cut(pipe):
    read_end, write_end = pipe
    writing(write_end, b"one\ntw", times=1).join()
    writing(write_end, b"o\n\nthree", times=1).join()
    os.close(write_end)
    reader = BoundedReader(read_end, 100)
    assert [reader.line(None) for _ in range(4)] == [b"one", b"two", b"", None]  # the unfinished "three" dropped


def test_an_endless_line_is_refused_once_it_passes_the_limit(pipe):
    read_end, write_end = pipe
    writing(write_end, b"A" * 65536)
    reader = BoundedReader(read_end, 4 << 20)
    with pytest.raises(TooLong):
        reader.line(time.monotonic() + 120)
    assert len(reader._buffer) <= (4 << 20) + (1 << 20)  # no more than the limit and one read


def test_the_deadline_holds_while_bytes_keep_coming(pipe):
    read_end, write_end = pipe
    writing(write_end, b"A" * 1024, pause=0.001)
    with pytest.raises(PastDeadline):
        BoundedReader(read_end, 1 << 30).line(time.monotonic() + 0.5)


def test_many_short_lines_cost_what_their_bytes_cost(pipe):
    read_end, write_end = pipe
    count = 100_000
    writer = writing(write_end, b"ab\n" * count, times=1)
    reader = BoundedReader(read_end, 100)
    cpu = time.thread_time()
    assert all(reader.line(time.monotonic() + 60) == b"ab" for _ in range(count))
    writer.join()
    assert time.thread_time() - cpu < 30  # CPU, not the clock: quadratic copying would take hours


def test_a_frame_longer_than_the_limit_is_refused_from_its_length(pipe):
    read_end, write_end = pipe
    with pytest.raises(TooLong):
        BoundedReader(read_end, 10).exactly(11, time.monotonic() + 60)  # nothing read: nothing waited for
    writing(write_end, b"%d\n" % (1 << 40), times=1).join()  # a length alone, its terabyte never sent
    with pytest.raises(TooLong):
        BoundedReader(read_end, 1 << 20).frame(time.monotonic() + 60)


def test_frames_come_back_whole_however_they_were_cut(pipe):
    read_end, write_end = pipe
    frames = [b"5\nab\ncd", b"0\n", b"12\n" + bytes(range(10, 22)), b"3\n\n\n\n"]
    stream = b"".join(frames)
    for cut in (1, 2, 3, 7, 11):
        writing(write_end, stream[:cut], times=1).join()
        stream = stream[cut:]
    writing(write_end, stream + b"50\nunfinished", times=1).join()
    os.close(write_end)
    reader = BoundedReader(read_end, 100)
    assert [reader.frame(None) for _ in range(5)] == [*frames, None]  # the unfinished last dropped


@pytest.mark.parametrize("sent", [b"ab\n", b"\n", b"+3\nabc", b" 3\nabc", b"0x3\nabc", b"1" * 40],
                         ids=["letters", "nothing", "a sign", "a space", "hexadecimal", "more digits than a length has"])
def test_bytes_that_do_not_start_with_a_frames_length_are_refused(pipe, sent):
    read_end, write_end = pipe
    writing(write_end, sent, times=1).join()
    with pytest.raises(NotAFrame):
        BoundedReader(read_end, 1 << 20).frame(time.monotonic() + 60)


def test_reading_to_the_end_stops_when_a_watched_pipe_is_readable(pipe):
    read_end, _ = pipe
    watched, other = os.pipe()
    try:
        os.close(other)  # the worker's end closing
        with pytest.raises(Interrupted):
            BoundedReader(read_end, 100).to_end(time.monotonic() + 60, watch=(watched,))
    finally:
        os.close(watched)


def test_a_write_to_a_reader_that_never_reads_stops_at_the_deadline(pipe):
    _, write_end = pipe
    with pytest.raises(PastDeadline):
        write_all(write_end, b"x" * (1 << 20), time.monotonic() + 0.5)  # 16 times what a pipe holds


def test_bytes_nobody_asked_for_are_noticed(pipe):
    read_end, write_end = pipe
    reader = BoundedReader(read_end, 100)
    assert not reader.pending()
    os.write(write_end, b"unasked")
    assert reader.pending()


def test_a_widened_pipe_takes_a_whole_chunk_before_its_reader_reads(pipe):
    read_end, write_end = pipe
    with open(write_end, "wb", closefd=False) as writer:
        widen(writer)
    if fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) < CHUNK:
        pytest.skip(f"this system keeps pipes under {CHUNK} bytes (/proc/sys/fs/pipe-max-size)")
    write_all(write_end, b"x" * CHUNK, time.monotonic() + 60)  # nobody reads: it all fits
    assert BoundedReader(read_end, CHUNK).exactly(CHUNK, None) == b"x" * CHUNK


def test_what_cannot_be_widened_is_left_as_it_was(tmp_path):
    with open(tmp_path / "not a pipe", "wb") as not_a_pipe:
        widen(not_a_pipe)  # refused by the system: no error
        not_a_pipe.write(b"still writable")
    assert (tmp_path / "not a pipe").read_bytes() == b"still writable"
