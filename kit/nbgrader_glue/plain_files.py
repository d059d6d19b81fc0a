"""What a hand-in holds besides regular files and folders, which autograde never reads or copies.

nbgrader copies every file of a hand-in into the autograded folder (and generate_feedback into the feedback
folder), and reads its notebooks, through any link, and opens any device. A hand-in copied into submitted/ by hand,
say from a zip (Info-ZIP's unzip makes the links a zip holds) or a tar (which makes pipes, and devices as root),
whose notes.txt links to a file of the instructor's account puts that file's bytes in those folders; a notebook
linked to the instructor's source notebook is graded as the solution it is, and shown back in its feedback page.
The kit's collect takes regular files and folders alone; autograde leaves out a student whose hand-in holds
anything else, saying what (ParallelAutograde.cannot_convert).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SHOWN = 5  # entries named in a message at most
KINDS = {stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device",
         stat.S_IFBLK: "a device"}


def not_plain(path: Path) -> str | None:
    """What `path` is when it is neither a regular file nor a folder (a link is never followed); None if it is."""
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        return f"a link to {os.readlink(path)}"
    return KINDS.get(stat.S_IFMT(mode))


def not_plain_in(folder: Path | str) -> list[str]:
    """Each entry of the hand-in `folder`, at any depth, that is neither a regular file nor a folder, as 'name: what
    it is' (the folder itself, or its student's folder, when that is a link)."""
    folder = Path(folder)
    found = [f"{path}: {what}" for path in (folder.parent, folder) if (what := not_plain(path))]
    if found:
        return found
    for at, folders, files in os.walk(folder):  # never into a linked folder: it is named, not walked
        for name in sorted(folders + files):
            path = Path(at) / name
            if what := not_plain(path):
                found.append(f"{path.relative_to(folder)}: {what}")
    return found


def not_plain_problem(folder: Path | str) -> str | None:
    """Why the hand-in `folder` is not graded, with what to do, when it holds anything but regular files and
    folders; None when it does not."""
    found = not_plain_in(folder)
    if not found:
        return None
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return (f"it holds what is neither a file nor a folder, which is never graded or copied "
            f"({'; '.join(found[:SHOWN])}{more}): put the file itself in place of each, or remove it, then "
            "autograde again")
