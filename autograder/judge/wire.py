"""The codec: cases and messages as JSON structure plus arrays' bytes, never pickles.

`save_cases`/`load_cases` write and read ``worked_example.npz`` (JSON
structure plus npz arrays; a release ships it, so its form stays); frames.py
carries the same structure, and the arrays' raw bytes, between the grader and
its grading child. `plain` turns whatever a student's code returned into
plain data before it crosses; `outcome_to_wire`/`outcome_from_wire` are the
one place an `Outcome` becomes plain data and back.
"""

from __future__ import annotations

import io
import json
import types
import zipfile

import numpy as np

from .case import Case
from .outcome import OUTCOME_KINDS, Outcome
from .policy import TEXT, Foreign, describe


class Seed(int):
    """Stands for ``np.random.default_rng(seed)``: every decode makes a fresh generator."""


class Scalar:
    """A NumPy number an answer returned (np.float32(0.68), np.uint64(3)), crossing as a 0-d array so that
    its dtype crosses too: decoded, it is that NumPy number again (`plain`)."""

    def __init__(self, number: np.generic):
        self.array = np.asarray(number)


def encode(obj, arrays: dict, prefix: str = "a"):
    """A JSON-able form of `obj`; its arrays go into `arrays` under fresh keys."""
    if isinstance(obj, Scalar):
        key = f"{prefix}{len(arrays)}"
        arrays[key] = obj.array
        return {"scalar": key}
    if isinstance(obj, np.ndarray):
        key = f"{prefix}{len(arrays)}"
        arrays[key] = obj
        return {"array": key}
    if isinstance(obj, Seed):
        return {"rng": int(obj)}
    if isinstance(obj, Foreign):
        return {"foreign": obj.description, "advice": obj.advice}
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
        if "scalar" in data:
            if arrays[data["scalar"]].ndim:
                raise TypeError("a NumPy number's array holds more than one")
            return arrays[data["scalar"]][()]
        if "tuple" in data:
            return tuple(decode(x, arrays, live) for x in data["tuple"])
        if "foreign" in data:
            if type(data["foreign"]) is not str or type(data.get("advice", "")) is not str:
                raise TypeError("a foreign object's description is not text")
            return Foreign(data["foreign"], data.get("advice", Foreign.PLAIN))
        if "rng" in data:
            return np.random.default_rng(data["rng"]) if live else Seed(data["rng"])
        return {k: decode(v, arrays, live) for k, v in data["dict"].items()}
    return data


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
    """`obj` as plain data (exact ndarrays, numbers, NumPy numbers with their dtype, strings, tuples), or a
    `Foreign` description of whatever else it is. Never keeps a student's object."""
    if type(obj) is np.ndarray and obj.dtype.kind in "biufc":
        return obj
    if type(obj) in (bool, int, float, str) or obj is None:
        return obj
    if isinstance(obj, np.generic) and type(obj) is obj.dtype.type and obj.dtype.kind in "biufc":
        return Scalar(obj)  # its dtype counts, as in the notebook's own check
    if type(obj) in (tuple, list) and depth < 2 and len(obj) <= 16:
        return type(obj)(plain(x, depth + 1) for x in obj)
    kind = type(obj)
    name = f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")
    if type(obj) is np.ndarray:  # of no numbers: Python objects, text, bytes, records, dates
        return Foreign(f"an array of shape {obj.shape} and dtype {obj.dtype}",
                       "return an array of numbers (np.asarray(x, dtype=float), where x holds numbers)")
    if isinstance(obj, np.ndarray):
        return Foreign(f"an ndarray subclass ({name})")
    if isinstance(obj, str):  # text of another type: numpy.str_, an item of an array of text
        return Foreign(name, TEXT)
    if isinstance(obj, types.GeneratorType):  # np.asarray of one is no array of its values
        return Foreign("a generator", "a function with `yield` in it gives a generator when called: `return` the "
                                      "array instead")
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
