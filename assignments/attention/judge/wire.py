"""The codec: cases and messages as JSON structure plus arrays' bytes, never pickles.

`save_cases`/`load_cases` write and read ``worked_example.npz`` (JSON
structure plus npz arrays; a release ships it, so its form stays). `frame_of`/
`from_frame` carry one message between the grader and its grading child: the
same JSON structure, each array's dtype and shape, and the arrays' raw bytes,
in one frame led by its length; a frame is untrusted when it comes from the
child, so `from_frame` reads only arrays of numbers or booleans whose bytes
are all there, and nothing past the length its first line states. `plain` turns whatever a student's code returned into plain data before
it crosses; `outcome_to_wire`/`outcome_from_wire` are the one place an
`Outcome` becomes plain data and back.
"""

from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np

from .case import Case
from .outcome import OUTCOME_KINDS, Outcome
from .policy import Foreign, describe


class Seed(int):
    """Stands for ``np.random.default_rng(seed)``: every decode makes a fresh generator."""


def encode(obj, arrays: dict, prefix: str = "a"):
    """A JSON-able form of `obj`; its arrays go into `arrays` under fresh keys."""
    if isinstance(obj, np.ndarray):
        key = f"{prefix}{len(arrays)}"
        arrays[key] = obj
        return {"array": key}
    if isinstance(obj, Seed):
        return {"rng": int(obj)}
    if isinstance(obj, Foreign):
        return {"foreign": obj.description}
    if isinstance(obj, tuple):
        return {"tuple": [encode(x, arrays, prefix) for x in obj]}
    if isinstance(obj, list):
        return [encode(x, arrays, prefix) for x in obj]
    if isinstance(obj, dict):
        return {"dict": {k: encode(v, arrays, prefix) for k, v in obj.items()}}
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot encode {describe(obj)}")


def decode(data, arrays, live: bool = False):
    """The inverse of `encode`. With `live`, every Seed becomes a new generator."""
    if isinstance(data, list):
        return [decode(x, arrays, live) for x in data]
    if isinstance(data, dict):
        if "array" in data:
            return arrays[data["array"]]
        if "tuple" in data:
            return tuple(decode(x, arrays, live) for x in data["tuple"])
        if "foreign" in data:
            if type(data["foreign"]) is not str:
                raise TypeError("a foreign object's description is not text")
            return Foreign(data["foreign"])
        if "rng" in data:
            return np.random.default_rng(data["rng"]) if live else Seed(data["rng"])
        return {k: decode(v, arrays, live) for k, v in data["dict"].items()}
    return data


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


def payload_start(frame: bytes | bytearray) -> int:
    """Where a frame's payload starts, after its length line; ValueError unless that line is ASCII digits
    (at most FRAME_DIGITS) that count exactly the bytes after it."""
    end = frame.find(b"\n", 0, FRAME_DIGITS + 1)
    if end < 1 or not frame[:end].isdigit() or int(frame[:end]) != len(frame) - end - 1:
        raise ValueError("not a frame")
    return end + 1


def from_frame(frame: bytes | bytearray) -> dict:
    """The message of a `frame_of` frame (each array a new, writable one). ValueError, and nothing else, for
    bytes that are not one: a length line that does not count the rest, any dtype outside WIRE_DTYPES, a
    shape its bytes do not fill exactly, bytes left over, a structure `decode` cannot read."""
    return _message_of(frame, payload_start(frame))


def read_payload(stream) -> bytes | None:
    """The payload of the next frame on a binary stream whose writer is trusted to frame what it sends (the
    grader, to its child and to its stand-in server); None when the stream has ended. ValueError for bytes
    that are not a frame: the stream cannot be read any further."""
    size = stream.readline(FRAME_DIGITS + 1)
    if not size:
        return None
    if not size.endswith(b"\n") or not size[:-1].isdigit():
        raise ValueError("not a frame")
    payload = stream.read(int(size))
    if len(payload) != int(size):
        raise ValueError("the frame was cut short")
    return payload


def from_payload(payload: bytes | bytearray) -> dict:
    """The message of a frame's payload (see `from_frame`)."""
    return _message_of(payload, 0)


def read_message(stream) -> dict | None:
    """The message of the next frame on a stream (`read_payload`, `from_payload`); None when it has ended."""
    payload = read_payload(stream)
    return None if payload is None else from_payload(payload)


def _message_of(data: bytes | bytearray, start: int) -> dict:
    """The message of the payload in `data` from `start` to its end (see `from_frame`)."""
    try:
        return _read_payload(data, start)
    except ValueError:
        raise
    except Exception as e:  # a forged frame's surprises (a list where a dict goes, ...) are refusals all the same
        raise ValueError(f"not a message frame ({type(e).__name__})") from None


def _read_payload(data: bytes | bytearray, start: int) -> dict:
    end = data.index(b"\n", start) + 1  # ValueError without one
    header = json.loads(data[start:end])
    start = end
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


def save_cases(path, cases: list[Case]) -> None:
    """Write cases (dicts of plain data and arrays) to one ``.npz`` file.

    The file is byte-for-byte the same for the same cases (fixed zip dates),
    so a regenerated release can be compared with the committed one.
    """
    arrays: dict = {}
    structure = encode(cases, arrays)
    arrays = {"__cases__": np.array(json.dumps(structure, sort_keys=True)), **arrays}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0)),
                             buffer.getvalue(), zipfile.ZIP_DEFLATED)


def plain(obj, depth: int = 0):
    """`obj` as plain data (exact ndarrays, numbers, strings, tuples), or a
    `Foreign` description of whatever else it is. Never keeps a student's object."""
    if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
        return obj
    if type(obj) in (bool, int, float, str) or obj is None:
        return obj
    if type(obj) in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        return obj.item()
    if type(obj) in (tuple, list) and depth < 2 and len(obj) <= 16:
        return type(obj)(plain(x, depth + 1) for x in obj)
    kind = type(obj)
    name = f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")
    if isinstance(obj, np.ndarray):
        return Foreign(f"an ndarray subclass ({name})")
    return Foreign(name)


def fresh_inputs(case: Case) -> tuple[list, dict]:
    """A case's (args, kwargs) as new copies, with a new generator for every Seed."""
    arrays: dict = {}
    data = encode([case["args"], case["kwargs"]], arrays)
    return tuple(decode(data, {k: a.copy() for k, a in arrays.items()}, live=True))


def load_cases(path) -> list[Case]:
    """The cases `save_cases` wrote; read with allow_pickle=False."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    return decode(json.loads(str(arrays.pop("__cases__"))), arrays)


OUTCOME_FIELDS = ("kind", "value", "error", "message", "peak")


def outcome_to_wire(outcome: Outcome) -> dict:
    """What the grading child sends of an outcome: its value as plain data (`plain`)."""
    return {"kind": outcome.kind, "value": plain(outcome.value), "error": outcome.error,
            "message": outcome.message, "peak": outcome.peak}


def outcome_from_wire(data) -> Outcome:
    """The outcome a grading child sent (untrusted), field by field; ValueError for anything else."""
    if not isinstance(data, dict) or sorted(data) != sorted(OUTCOME_FIELDS):
        raise ValueError("not an outcome")
    kind, error, message, peak = data["kind"], data["error"], data["message"], data["peak"]
    if kind not in OUTCOME_KINDS or type(error) is not str or type(message) is not str or \
            not (peak is None or type(peak) is int):
        raise ValueError("not an outcome")
    return Outcome(kind, data["value"], error, message, peak)
