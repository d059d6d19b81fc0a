"""A stand-in's call frame read from its header alone: the grader routes it, the kept answers name it.

A call frame (`judge.frame_of`: its length, a JSON header, a newline, then the arrays' bytes) may carry
megabytes of arrays (prefix_gaps' case of 260 tokens sends 47 MB of masks a student) that the grader
never looks at: it passes the frame as it came to the stand-in server (autograder/stand_in_server.py),
which reads it whole and strictly (`judge.from_frame`), or answers it from the answers kept. So the
grader reads only the frame's header, to learn which call it is and for which request. Any other frame
(an outcome, a call whose name or token is not text) is read whole, as before.
"""

from __future__ import annotations

from autograder.judge.frames import payload_start, read_header


def header(frame: bytes | bytearray) -> tuple[dict, int]:
    """(the frame's JSON header, where the bytes after it start). ValueError for a frame whose length line
    does not count its bytes, or whose payload holds no line."""
    return read_header(frame, payload_start(frame))


def call_in(found: dict) -> dict | None:
    """{"call": name, "nonce": token or None} of a stand-in's call frame, from its header as `header` read it
    (not changed); None for any other frame: read that one whole (`judge.from_frame`)."""
    try:
        if sorted(found) != ["arrays", "message"]:  # judge.from_frame refuses it: read it whole to say so
            return None
        message = found["message"]["dict"]
        call, nonce = message["call"], message.get("nonce")
    except Exception:  # a forged header's surprises (a list where a dict goes, a key that is no text, ...)
        return None
    if type(call) is not str or not (nonce is None or type(nonce) is str):
        return None
    return {"call": call, "nonce": nonce}
