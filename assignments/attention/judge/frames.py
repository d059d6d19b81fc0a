"""One message between the grader and its grading child, as a frame: its length, then the message.

A frame is a line of its payload's length in ASCII digits (at most
FRAME_DIGITS), then the payload: a JSON header, ``{"message": the message's
structure (`wire.encode`), "arrays": [[dtype.str, shape], ...]}``, on one line
(JSON escapes every newline), then each array's raw bytes (C order), in order.
A frame is untrusted when it comes from the child, so `from_frame` reads only
arrays of numbers or booleans whose bytes are all there, and nothing past the
length its first line states; a reader of the child's pipe reads the length
first and refuses a frame longer than it will take before reading it
(autograder/bounded_pipe.py). Never a pickle.
"""

from __future__ import annotations

import json
import math

import numpy as np

from .wire import decode, encode

# The arrays a frame may carry, by `dtype.str`: booleans and numbers, in either byte order; never objects.
WIRE_DTYPES = {dtype.str: dtype for code in "?" + np.typecodes["AllInteger"] + np.typecodes["AllFloat"]
               for dtype in (np.dtype(code).newbyteorder("<"), np.dtype(code).newbyteorder(">"))}
MAX_WIRE_DIMENSIONS = 32  # NumPy's own limit is 64


FRAME_DIGITS = 20  # a frame's length line: at most this many ASCII digits


def frame_of(message: dict) -> bytes:
    """One message between the grader and its child, as one frame: a line of the payload's length in ASCII
    digits, then the payload, a JSON header ``{"message": its structure (`encode`), "arrays": [[dtype.str,
    shape], ...]}`` (one line: JSON escapes every newline), a newline, then each array's bytes (C order), in
    order. TypeError for what `encode` refuses or an array not in WIRE_DTYPES."""
    structure, shapes, arrays = frame_parts(message)
    return framed([json.dumps({"message": structure, "arrays": shapes}, sort_keys=True).encode(), b"\n", *arrays])


def frame_parts(message: dict) -> tuple[dict, list, list]:
    """`frame_of`'s parts of a message: its structure, its arrays' [dtype.str, shape], and their bytes (each
    array's, C order, as a flat uint8 array: not copied where the array is C-contiguous)."""
    arrays: dict = {}
    structure = encode(message, arrays)
    shapes = []
    for array in arrays.values():
        if array.dtype.str not in WIRE_DTYPES:
            raise TypeError(f"only arrays of numbers or booleans can cross, not of {array.dtype}")
        shapes.append([array.dtype.str, list(array.shape)])
    return structure, shapes, [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in arrays.values()]


def framed(parts: list) -> bytes:
    """The frame of a payload given in parts (bytes-like), copied once."""
    return b"".join([b"%d\n" % sum(len(part) for part in parts), *parts])


_NONCE = "\x00nonce\x00"  # stands for the nonce in a FrameWithNonce's header: no case's text holds it


class FrameWithNonce:
    """The frames of one message sent again and again, each time with a fresh "nonce" (a hex token): the
    message encoded once."""

    def __init__(self, message: dict):
        structure, shapes, arrays = frame_parts({**message, "nonce": _NONCE})
        header = json.dumps({"message": structure, "arrays": shapes}, sort_keys=True)
        placeholder = json.dumps(_NONCE)
        if header.count(placeholder) != 1:
            raise ValueError("the message already holds the nonce's placeholder")
        self._before, self._after = header.split(placeholder)
        self._data = b"".join(arrays)

    def frame(self, nonce: str) -> bytes:
        if not nonce.isalnum() or not nonce.isascii():
            raise ValueError("a nonce is a hex token")
        return framed([f'{self._before}"{nonce}"{self._after}\n'.encode(), self._data])


def frame_length(head: bytes | bytearray) -> tuple[int, int] | None:
    """(the payload's length, where the payload starts) from a frame's first bytes; None while its length
    line may still be coming (no newline yet, and no more than FRAME_DIGITS bytes). ValueError for bytes
    that do not start with a line of ASCII digits."""
    end = head.find(b"\n", 0, FRAME_DIGITS + 1)
    if end < 0 and len(head) <= FRAME_DIGITS:
        return None
    if end < 1 or not head[:end].isdigit():
        raise ValueError("not a frame")
    return int(head[:end]), end + 1


def payload_start(frame: bytes | bytearray) -> int:
    """Where a frame's payload starts, after its length line; ValueError unless that line is ASCII digits
    (at most FRAME_DIGITS) that count exactly the bytes after it."""
    found = frame_length(frame)
    if found is None or found[0] != len(frame) - found[1]:
        raise ValueError("not a frame")
    return found[1]


def read_header(data: bytes | bytearray, start: int) -> tuple[dict, int]:
    """(the JSON header of the payload starting at `start`, where the bytes after it start). ValueError
    without a newline after it or for a header that is not JSON."""
    end = data.index(b"\n", start) + 1
    return json.loads(data[start:end]), end


def from_frame(frame: bytes | bytearray, header: tuple[dict, int] | None = None) -> dict:
    """The message of a `frame_of` frame (each array a new, writable one). ValueError, and nothing else, for
    bytes that are not one: a length line that does not count the rest, any dtype outside WIRE_DTYPES, a
    shape its bytes do not fill exactly, bytes left over, a structure `decode` cannot read. `header`: the
    frame's header already read from it, and where its arrays start (autograder/call_frames.py), not read
    again."""
    return _message_of(frame, payload_start(frame), header)


def read_payload(stream) -> bytes | None:
    """The payload of the next frame on a binary stream whose writer is trusted to frame what it sends (the
    grader, to its child and to its stand-in server); None when the stream has ended. ValueError for bytes
    that are not a frame: the stream cannot be read any further."""
    head = stream.readline(FRAME_DIGITS + 1)
    if not head:
        return None
    found = frame_length(head)
    if found is None or found[1] != len(head):
        raise ValueError("not a frame")
    payload = stream.read(found[0])
    if len(payload) != found[0]:
        raise ValueError("the frame was cut short")
    return payload


def from_payload(payload: bytes | bytearray) -> dict:
    """The message of a frame's payload (see `from_frame`)."""
    return _message_of(payload, 0)


def read_message(stream) -> dict | None:
    """The message of the next frame on a stream (`read_payload`, `from_payload`); None when it has ended."""
    payload = read_payload(stream)
    return None if payload is None else from_payload(payload)


def _message_of(data: bytes | bytearray, start: int, header: tuple[dict, int] | None = None) -> dict:
    """The message of the payload in `data` from `start` to its end (see `from_frame`)."""
    try:
        return _read_payload(data, start, header)
    except ValueError:
        raise
    except Exception as e:  # a forged frame's surprises (a list where a dict goes, ...) are refusals all the same
        raise ValueError(f"not a message frame ({type(e).__name__})") from None


def _read_payload(data: bytes | bytearray, start: int, read: tuple[dict, int] | None) -> dict:
    header, start = read or read_header(data, start)
    if type(header) is not dict or sorted(header) != ["arrays", "message"] or type(header["arrays"]) is not list:
        raise ValueError("not a message header")
    arrays = {}
    for spec in header["arrays"]:
        dtype = WIRE_DTYPES.get(spec[0]) if type(spec) is list and len(spec) == 2 and type(spec[0]) is str else None
        shape = spec[1] if dtype is not None else None
        if type(shape) is not list or len(shape) > MAX_WIRE_DIMENSIONS or \
                any(type(n) is not int or n < 0 for n in shape):
            raise ValueError("not an array of numbers or booleans")
        count = math.prod(shape)
        end = start + count * dtype.itemsize
        if end > len(data):
            raise ValueError("an array's bytes are missing")
        # Under the keys `encode` gave them, in order.
        arrays[f"a{len(arrays)}"] = np.frombuffer(data, dtype, count, start).reshape(shape).copy()
        start = end
    if start != len(data):
        raise ValueError("bytes left over after the arrays")
    message = decode(header["message"], arrays)
    if type(message) is not dict:
        raise ValueError("not a message")
    return message
