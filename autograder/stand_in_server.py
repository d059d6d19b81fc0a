"""The reference standing in for a student's function, computed in a bounded process of the grader's own.

While an answer runs, its calls to the exercises it is built on (judge.BUILT_ON)
come to the grader with inputs the student's code chose. Computing the
reference's answer to such inputs in the grader itself could cost it without
bound (`softmax_jacobian` of 8,192 numbers is a 512 MiB answer). So a
`StandInServer` computes each: a process of the grader's, trusted (it imports
the answer key and reads plain data, never student code), whose address space
is capped at the grader's memory per student (course.toml [grading]
grader_memory_mib, autograder/budget.py) and which is ended when a call
outlasts the case's deadline. Its answer, one `judge.frame_of` frame, goes to
the grading child as it came; the CPU time it took is charged to the student.

Servers are kept between calls, one per grading thread at a time
(`answer`), and end when the grader does: stopped and waited for as it exits,
so their CPU time counts in its children's, or, if it is killed, as their
stdin closes.

The reference is a function of its inputs alone, so the answer to a call is
kept (`_Kept`: the last answers, up to KEPT_BYTES in all, none over
KEPT_REPLY_BYTES) and given again to the same call, whoever's code makes it:
most students' answers make the same calls on the same cases. A kept answer
is charged to the student as the CPU time it first took. An answer that
depends on more than the call (a MemoryError: the server's memory at that
moment) is never kept.

    python -c '...serve(MEMORY_BYTES)'   reads call frames on stdin; answers each with
                                         {"cpu": seconds, "keep": bool}\n and then the reply frame
"""

from __future__ import annotations

import atexit
import hashlib
import inspect
import json
import resource
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path

from autograder.bounded_pipe import BoundedReader, PastDeadline, TooLong, widen, write_all
from autograder.call_frames import header as header_of
from autograder.judge import frame_of, plain
from autograder.judge.frames import from_payload, payload_start, read_payload

ROOT = Path(__file__).resolve().parent.parent
STARTING_SECONDS = 60
# The answers kept for calls made again, in all: more than one student's calls (prefix_gaps' case of 260
# tokens alone asks attention 261 times, about 63 MB of answers). They are kept least recently used: were one
# student's calls more than fit, the next student, making them in the same order, would find none kept.
KEPT_BYTES = 96 << 20
KEPT_REPLY_BYTES = 1 << 20  # ... and at most this long each


def serve(memory_bytes: int) -> None:
    """The server's loop (see the module docstring): the address space capped once the answer key is loaded."""
    from autograder.answer_key import reference_of
    from autograder.exercises import REGISTRY  # noqa: F401  (loaded now, not counted in the first call)

    size = int(next(line for line in Path("/proc/self/status").read_text().splitlines()
                    if line.startswith("VmSize:")).split()[1]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + memory_bytes, size + memory_bytes))
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    while (payload := read_payload(sys.stdin.buffer)) is not None:
        start, name, keep, message = time.process_time(), "?", True, {}
        try:
            message = from_payload(payload)
            name = message["call"]
            value = reference_of(name)(*message["args"], **message["kwargs"])
            reply = frame_of({"value": plain(value)})
        except MemoryError:  # the server's memory at this moment decided it: never kept
            keep = False
            reply = frame_of({"error": ("MemoryError", f"{name}: the reference's answer to this input takes more "
                                                         f"than the grader's memory per student "
                                                         f"({memory_bytes >> 20} MiB); call it on smaller inputs")})
        except Exception as e:
            reply = frame_of({"error": (type(e).__name__, (str(e)[:500] + _called_otherwise(name, message, e)))})
        header = {"cpu": time.process_time() - start, "keep": keep}
        out.write(json.dumps(header).encode() + b"\n")
        out.write(reply)
        out.flush()


def _called_otherwise(name: str, message: dict, error: Exception) -> str:
    """Where the student's code called a stand-in with arguments the reference does not take (their own softmax
    took a `mask` too): that the reference answers the call, and how it is called; "" for any other error."""
    from autograder.answer_key import reference_of

    if type(error) is not TypeError:
        return ""
    try:
        signature = inspect.signature(reference_of(name))
        signature.bind(*message["args"], **message["kwargs"])
    except TypeError:
        signature = signature.replace(parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
                                      return_annotation=signature.empty)
        return (f" (while your answer is graded, {name} is the reference's {name}{signature}, standing in for yours "
                f"so that a mistake in it costs its own points only: call {name} with the arguments its stub takes)")
    except Exception:  # no such reference, no signature, a message without arguments: nothing to add
        return ""
    return ""


class StandInServer:
    """One server process (see the module docstring)."""

    def __init__(self, memory_bytes: int, reply_bytes: int):
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                                   f"from autograder.stand_in_server import serve; serve({memory_bytes})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        widen(self.process.stdin, self.process.stdout)
        self.reader = BoundedReader(self.process.stdout.fileno(), reply_bytes)
        if self.reader.line(time.monotonic() + STARTING_SECONDS) != b"ready":
            self.stop()
            raise RuntimeError("the stand-in server did not start")

    def ask(self, frame: bytes, deadline: float) -> tuple[bytes, float, bool]:
        """(the reply frame, the server's CPU seconds, whether the reply may be kept for the same call) for a
        call frame; PastDeadline, TooLong or EOFError."""
        write_all(self.process.stdin.fileno(), frame, deadline)
        header, reply = self.reader.line(deadline), None
        if header is not None:
            reply = self.reader.frame(deadline)
        if reply is None:
            raise EOFError("the stand-in server ended")
        header = json.loads(header)
        return bytes(reply), float(header["cpu"]), header["keep"] is True

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


class _Kept:
    """The server's answers to calls, kept for the same call made again (see the module docstring): the
    most recently used, up to KEPT_BYTES in all."""

    def __init__(self):
        self._answers: OrderedDict[bytes, tuple[bytes, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def call(frame: bytes, bounds: tuple[int, int], read: tuple[dict, int] | None = None) -> bytes:
        """What names a call frame whatever its nonce (a token fresh for each request): a digest of the
        bounds it is answered within, of its header (the JSON before the arrays, as read: `call_frames`,
        or `read` from it already) without the nonce, and of the bytes after it as they came. Two frames of
        one digest are one call, and the server reads them alike, whatever they hold. A frame that holds no
        header raises ValueError (the call is not kept)."""
        header, end = read or header_of(frame)
        message = {key: value for key, value in header["message"]["dict"].items() if key != "nonce"}
        text = json.dumps({**header, "message": {**header["message"], "dict": message}}, sort_keys=True).encode()
        digest = hashlib.sha256(repr((bounds, len(text))).encode())
        digest.update(text)
        digest.update(memoryview(frame)[end:])
        return digest.digest()

    def get(self, call: bytes) -> tuple[bytes, float] | None:
        with self._lock:
            found = self._answers.get(call)
            if found is not None:
                self._answers.move_to_end(call)
            return found

    def put(self, call: bytes, reply: bytes, cpu: float) -> None:
        if len(reply) > KEPT_REPLY_BYTES:
            return
        with self._lock:
            if call not in self._answers:
                self._answers[call] = (reply, cpu)
                self._bytes += len(reply)
            while self._bytes > KEPT_BYTES:
                _, (dropped, _) = self._answers.popitem(last=False)
                self._bytes -= len(dropped)


_kept = _Kept()
_idle: dict[tuple[int, int], list[StandInServer]] = {}
_lock = threading.Lock()


def answer(frame: bytes, memory_bytes: int, reply_bytes: int, deadline: float,
           read: tuple[dict, int] | None = None) -> tuple[bytes, float]:
    """The reply frame to a stand-in's call frame (its header `read` from it already, if it was:
    autograder/call_frames.py), and the CPU seconds it cost (a kept answer: what it cost when the server
    computed it); a refusal when the server ran out of time or sent too much (it is ended then, and a new one
    takes the next call), or when the frame's length is not its own (never sent)."""
    key = (memory_bytes, reply_bytes)
    try:
        payload_start(frame)
    except ValueError:
        return frame_of({"error": ("ValueError", "not a frame")}), 0.0
    try:
        call = _Kept.call(frame, key, read)
    except (ValueError, KeyError, TypeError, AttributeError):  # not a frame to keep an answer for: asked as it is
        call = None
    kept = None if call is None else _kept.get(call)
    if kept is not None:
        return kept
    with _lock:
        server = _idle.get(key, []).pop() if _idle.get(key) else None
    start = time.monotonic()
    try:
        server = server or StandInServer(memory_bytes, reply_bytes)
        reply, cpu, keep = server.ask(frame, deadline)
    except (PastDeadline, TooLong, EOFError, OSError, RuntimeError, ValueError) as e:
        if server is not None:
            server.stop()
        why = {PastDeadline: "took longer than the case allows", TooLong: "is too large to send back"}.get(
            type(e), "could not be computed")
        return frame_of({"error": ("MemoryError" if type(e) is TooLong else "RuntimeError",
                                     f"the reference's answer to this input {why} (the grader's bound per student)")
                           }), time.monotonic() - start
    with _lock:
        _idle.setdefault(key, []).append(server)
    if keep and call is not None:
        _kept.put(call, reply, cpu)
    return reply, cpu


def stop_all() -> None:
    """End every idle server and wait for it (at the grader's exit, and in tests)."""
    with _lock:
        servers = [s for kept in _idle.values() for s in kept]
        _idle.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all)
