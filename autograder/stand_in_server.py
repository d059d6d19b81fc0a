"""The reference standing in for a student's function, computed in a bounded process of the grader's own.

While an answer runs, its calls to the exercises it is built on (judge.BUILT_ON)
come to the grader with inputs the student's code chose. Computing the
reference's answer to such inputs in the grader itself could cost it without
bound (`softmax_jacobian` of 8,192 numbers is a 512 MiB answer). So a
`StandInServer` computes each: a process of the grader's, trusted (it imports
the answer key and reads plain data, never student code), whose address space
is capped at the grader's memory per student (course.toml [grading]
grader_memory_mib, autograder/budget.py) and which is ended when a call
outlasts the case's deadline. Its answer, one `judge.to_line` line, goes to
the grading child as it came; the CPU time it took is charged to the student.

Servers are kept between calls, one per grading thread at a time
(`answer`), and end when the grader does: stopped and waited for as it exits,
so their CPU time counts in its children's, or, if it is killed, as their
stdin closes.

    python -c '...serve(MEMORY_BYTES)'   reads call lines on stdin; answers each with
                                         {"cpu": seconds}\n and then the reply line
"""

from __future__ import annotations

import atexit
import json
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from autograder.bounded_pipe import BoundedReader, PastDeadline, TooLong, write_all
from autograder.judge import from_line, plain, to_line

ROOT = Path(__file__).resolve().parent.parent
STARTING_SECONDS = 60


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
    for line in sys.stdin.buffer:
        start, name = time.process_time(), "?"
        try:
            message = from_line(line)
            name = message["call"]
            value = reference_of(name)(*message["args"], **message["kwargs"])
            reply = to_line({"value": plain(value)})
        except MemoryError:
            reply = to_line({"error": ("MemoryError", f"{name}: the reference's answer to this input takes more "
                                                      f"than the grader's memory per student "
                                                      f"({memory_bytes >> 20} MiB); call it on smaller inputs")})
        except Exception as e:
            reply = to_line({"error": (type(e).__name__, str(e)[:500])})
        out.write(json.dumps({"cpu": time.process_time() - start}).encode() + b"\n" + reply.encode() + b"\n")
        out.flush()


class StandInServer:
    """One server process (see the module docstring)."""

    def __init__(self, memory_bytes: int, reply_bytes: int):
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                                   f"from autograder.stand_in_server import serve; serve({memory_bytes})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        self.reader = BoundedReader(self.process.stdout.fileno(), reply_bytes)
        if self.reader.line(time.monotonic() + STARTING_SECONDS) != b"ready":
            self.stop()
            raise RuntimeError("the stand-in server did not start")

    def ask(self, line: bytes, deadline: float) -> tuple[bytes, float]:
        """(the reply line, the server's CPU seconds) for a call line; PastDeadline, TooLong or EOFError."""
        write_all(self.process.stdin.fileno(), line.rstrip(b"\n") + b"\n", deadline)
        header, reply = self.reader.line(deadline), None
        if header is not None:
            reply = self.reader.line(deadline)
        if reply is None:
            raise EOFError("the stand-in server ended")
        return bytes(reply), float(json.loads(header)["cpu"])

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


_idle: dict[tuple[int, int], list[StandInServer]] = {}
_lock = threading.Lock()


def answer(line: bytes, memory_bytes: int, reply_bytes: int, deadline: float) -> tuple[bytes, float]:
    """The reply line to a stand-in's call line, and the CPU seconds it cost; a refusal line when the
    server ran out of time or sent too much (it is ended then, and a new one takes the next call)."""
    key = (memory_bytes, reply_bytes)
    with _lock:
        server = _idle.get(key, []).pop() if _idle.get(key) else None
    start = time.monotonic()
    try:
        server = server or StandInServer(memory_bytes, reply_bytes)
        reply, cpu = server.ask(line, deadline)
    except (PastDeadline, TooLong, EOFError, OSError, RuntimeError, ValueError) as e:
        if server is not None:
            server.stop()
        why = {PastDeadline: "took longer than the case allows", TooLong: "is too large to send back"}.get(
            type(e), "could not be computed")
        return to_line({"error": ("MemoryError" if type(e) is TooLong else "RuntimeError",
                                  f"the reference's answer to this input {why} (the grader's bound per student)")
                        }).encode(), time.monotonic() - start
    with _lock:
        _idle.setdefault(key, []).append(server)
    return reply, cpu


def stop_all() -> None:
    """End every idle server and wait for it (at the grader's exit, and in tests)."""
    with _lock:
        servers = [s for kept in _idle.values() for s in kept]
        _idle.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all)
