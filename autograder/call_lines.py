"""A stand-in's call line read from its head alone: the grader routes it, the kept answers name it.

A call line (`judge.to_line`: base64 of a JSON header, a newline, then the arrays' bytes) may carry
megabytes of arrays (prefix_gaps' case of 260 tokens sends 47 MB of masks a student) that the grader
never looks at: it passes the line as it came to the stand-in server (autograder/stand_in_server.py),
which reads it whole and strictly (`judge.from_line`), or answers it from the answers kept. So the
grader decodes only the line's head, enough to hold the header, to learn which call it is and for
which request. Any other line (an outcome, a head that is not plain base64, a call whose name or
token is not text) is read whole, as before.
"""

from __future__ import annotations

import binascii
import json

HEAD_CHARS = 1 << 12  # a call's header is a few hundred bytes; four times more at a time for a longer one


def head(line: bytes) -> tuple[dict, bytes, int]:
    """(the line's header, the bytes decoded after it within the head, the head's length in characters).
    The head is decoded as plain base64 (strict), unpadded unless it is the whole line, so that the rest,
    decoded after it, gives what decoding the whole line gives. ValueError for a head that is not plain
    base64 or holds no header."""
    size = HEAD_CHARS
    while True:
        decoded = binascii.a2b_base64(line[:size], strict_mode=True)
        end = decoded.find(b"\n")
        if end >= 0 or size >= len(line):
            break
        size *= 4
    if end < 0 or (size < len(line) and b"=" in line[:size]):
        raise ValueError("no header in the line's head")
    return json.loads(decoded[:end]), decoded[end:], size


def call_of(line: bytes) -> dict | None:
    """{"call": name, "nonce": token or None} of a stand-in's call line, read from its head alone; None for
    any other line: read that one whole (`judge.from_line`)."""
    try:
        header = head(line)[0]
        if sorted(header) != ["arrays", "message"]:  # judge.from_line refuses it: read it whole to say so
            return None
        message = header["message"]["dict"]
        call, nonce = message["call"], message.get("nonce")
    except Exception:  # a forged head's surprises (a list where a dict goes, JSON nested past recursion, ...)
        return None
    if type(call) is not str or not (nonce is None or type(nonce) is str):
        return None
    return {"call": call, "nonce": nonce}
