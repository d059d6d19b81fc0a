"""Every exercise's hidden cases, kept on disk between processes: built once per version of the kit.

Building the hidden cases (the reference's answer and every known mistake's on each, some of 4,096
tokens, hypothesis's drawn examples) costs a process some 3 to 4 CPU seconds, and every process that
grades builds them: each nbgrader command, each worker of the grading service and of the cluster, each
notebook graded in a kernel. They depend only on the kit's code and data (autograder/, solutions/,
model/ with its weights) and on the versions of Python, NumPy and hypothesis, so the first process to
build them all keeps them in one file named by a digest of those (`key`), in the checkout's
.run/hidden-cases/ (a folder of mode 700, the file 600; the other versions' files removed), and the
others read it. A file this account does not own, that another account may write, or that does not
read back as cases is never used: the cases are built as before.

    load() → {exercise: cases} | None        keep({exercise: cases}) → the file written, or None

The file holds the cases exactly: NumPy scalars stay NumPy scalars of their dtype, tuples stay tuples,
a judge Seed stays a Seed (no pickles: JSON structure, and the arrays as .npy members).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
import time
import zipfile
from functools import cache
from importlib import metadata
from pathlib import Path

import numpy as np

from autograder.judge import Seed

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / ".run" / "hidden-cases"
SOURCES = ("autograder", "solutions", "model")  # every file under these, but bytecode


@cache
def key() -> str:
    """A digest of what the cases depend on: the files of SOURCES, and the versions of Python, NumPy, hypothesis."""
    digest = hashlib.sha256()
    for part in (sys.version, np.__version__, metadata.version("hypothesis")):
        digest.update(part.encode() + b"\0")
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def _path() -> Path:
    return FOLDER / f"{key()}.npz"


def _encode(obj, arrays: dict):
    if isinstance(obj, np.ndarray):
        arrays[f"a{len(arrays)}"] = obj
        return {"array": f"a{len(arrays) - 1}"}
    if isinstance(obj, np.generic):
        arrays[f"a{len(arrays)}"] = np.asarray(obj)
        return {"scalar": f"a{len(arrays) - 1}"}
    if isinstance(obj, Seed):
        return {"seed": int(obj)}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(x, arrays) for x in obj]}
    if isinstance(obj, list):
        return [_encode(x, arrays) for x in obj]
    if isinstance(obj, dict) and all(type(k) is str for k in obj):
        return {"dict": [[k, _encode(v, arrays)] for k, v in obj.items()]}
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    raise TypeError(f"a case holds a {type(obj).__name__}, which the store does not keep")


def _decode(data, arrays: dict):
    if isinstance(data, list):
        return [_decode(x, arrays) for x in data]
    if not isinstance(data, dict):
        return data
    [(kind, value)] = data.items()
    if kind == "array":
        return arrays[value]
    if kind == "scalar":
        return arrays[value][()]
    if kind == "seed":
        return Seed(value)
    if kind == "tuple":
        return tuple(_decode(x, arrays) for x in value)
    if kind == "dict":
        return {k: _decode(v, arrays) for k, v in value}
    raise ValueError(f"not a kept case: {kind!r}")


def _ours(path: Path) -> bool:
    """Is `path` this account's, and writable by no other (the folder holding it too)?"""
    for entry in (path.parent, path):
        info = entry.lstat()
        if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or stat.S_ISLNK(info.st_mode):
            return False
    return True


def load() -> dict[str, tuple[dict, ...]] | None:
    """The kept cases of this version of the kit (exercise → its cases), or None (none kept, or not usable)."""
    path = _path()
    try:
        if not _ours(path):
            return None
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        kept = _decode(json.loads(str(arrays.pop("__cases__"))), arrays)
        return {name: tuple(cases) for name, cases in kept.items()}
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, json.JSONDecodeError):
        return None


def keep(cases: dict[str, tuple[dict, ...]]) -> Path | None:
    """Write `cases` (exercise → its cases) for the next processes; None where it cannot (a read-only checkout,
    a case the store does not keep), which costs them only the building."""
    try:
        arrays: dict = {}
        structure = json.dumps(_encode({name: list(c) for name, c in cases.items()}, arrays))
        FOLDER.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _ours(FOLDER):
            return None
        FOLDER.chmod(0o700)
        for old in [*FOLDER.glob("*.npz"), *FOLDER.glob("*.partial")]:  # other versions', and writes cut short
            if old != _path() and (old.suffix == ".npz" or time.time() - old.stat().st_mtime > 3600):
                old.unlink(missing_ok=True)
        file = tempfile.NamedTemporaryFile(dir=FOLDER, suffix=".partial", delete=False)
        try:
            with file:
                np.savez(file, __cases__=np.array(structure), **arrays)
            os.chmod(file.name, 0o600)
            os.replace(file.name, _path())
        finally:
            Path(file.name).unlink(missing_ok=True)
        return _path()
    except (OSError, TypeError):
        return None
