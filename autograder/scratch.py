"""Scratch folders that hold copies of a student's work while it is handled, and what a killed process left.

Four kinds, each made and removed by one process: the grader's (GRADING, autograder/submission.py: the
notebooks restored for grading, the grader's code), a cluster worker's (CLUSTER, autograder/cluster_task.py:
the submission and the course's source as they came), the confinement probe's (PROBE, autograder/sandbox.py:
a trivial child's world, tried once a process; swept with the grader's), all in the temporary folder, and a
hand-in being collected (kit/hand_in/collect.py: `.collecting-…` in the course's submitted/ folder). A process killed
part-way (SIGKILL, the OOM killer, a culled server, a lost worker) cannot remove its folder, so each folder's
name says who made it: the PID namespace, process id and start time of its maker. The first folder of a kind
a process makes in a folder first removes (`sweep`) every folder of that kind there, of this account, whose
maker, in this PID namespace, has ended:

    <temporary folder>/attention-grading-<pid namespace>-<pid>-<start time>-<random>/

A folder whose maker cannot be judged from here is left as it is: made in another PID namespace (a
container sharing the folder), named in another form (an older kit's), another account's, or a link.
Where /proc cannot say which process this is, folders are named and left in the older form.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
from pathlib import Path

from autograder.grading_child import remove_tree
from autograder.sandbox import PROBE, owner_tag, pid_namespace, start_ticks

GRADING, CLUSTER, COLLECTING = "attention-grading-", "attention-cluster-", ".collecting-"  # the kinds' prefixes
_lock = threading.Lock()
_swept: set[tuple[str, str]] = set()  # (folder, kind) swept by this process


def make(prefix: str = GRADING, folder: Path | None = None) -> Path:
    """A new folder (mode 0700) of kind `prefix` in `folder` (the temporary folder) named for this process; the
    first of its kind there this process makes sweeps first."""
    folder = Path(folder or tempfile.gettempdir())
    with _lock:
        if (str(folder), prefix) not in _swept:
            _swept.add((str(folder), prefix))
            for kind in (prefix, PROBE) if prefix == GRADING else (prefix,):  # the probe makes its own (sandbox.py)
                sweep(folder, kind)
    return Path(tempfile.mkdtemp(prefix=prefix + owner_tag(), dir=folder))


def sweep(folder: Path, prefix: str = GRADING) -> list[Path]:
    """Remove every folder of kind `prefix` in `folder` of this account whose maker, in this PID namespace,
    has ended (its process id gone, or taken by a process that started at another time). Returns the folders
    removed."""
    namespace = pid_namespace()
    if namespace is None:
        return []
    name_of = re.compile(re.escape(prefix) + r"(\d+)-(\d+)-(\d+)-[A-Za-z0-9_]+")
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in names:
        found = name_of.fullmatch(name)
        if not found or found.group(1) != namespace:
            continue
        pid, started = int(found.group(2)), int(found.group(3))
        path = folder / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or start_ticks(pid) == started:
            continue
        remove_tree(path)
        removed.append(path)
    return removed
