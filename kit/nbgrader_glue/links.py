"""The links in a hand-in, which autograde never follows.

nbgrader copies every file of a hand-in into the autograded folder (and generate_feedback into the feedback
folder), and reads its notebooks, through any link. A hand-in copied into submitted/ by hand, say from a zip
(Info-ZIP's unzip makes the links a zip holds), whose notes.txt links to a file of the instructor's account puts
that file's bytes in those folders; a notebook linked to the instructor's source notebook is graded as the
solution it is, and shown back in its feedback page. The kit's collect refuses a hand-in that holds a link;
autograde leaves out a student whose hand-in holds one, saying which (ParallelAutograde.cannot_convert).
"""

from __future__ import annotations

import os
from pathlib import Path

SHOWN = 5  # links named in a message at most


def links_in(folder: Path | str) -> list[str]:
    """Each link in the hand-in `folder`, at any depth, as 'name → target' (the folder itself, or its student's
    folder, when that is a link)."""
    folder = Path(folder)
    found = [f"{path} → {os.readlink(path)}" for path in (folder.parent, folder) if path.is_symlink()]
    if found:
        return found
    for at, folders, files in os.walk(folder):  # never into a linked folder: it is named, not walked
        for name in sorted(folders + files):
            path = Path(at) / name
            if path.is_symlink():
                found.append(f"{path.relative_to(folder)} → {os.readlink(path)}")
    return found


def links_problem(folder: Path | str) -> str | None:
    """Why the hand-in `folder` is not graded while it holds links, with what to do; None if it holds none."""
    found = links_in(folder)
    if not found:
        return None
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return (f"it holds links, which are never graded or copied ({', '.join(found[:SHOWN])}{more}): put the file "
            "itself in place of each link, or remove it, then autograde again")
