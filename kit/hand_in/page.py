"""A feedback page the kit writes itself, not converted from a graded notebook, and the folder that holds them.

Two kinds: the notice a hand-in over the grading service's limit gets
(kit/grading_service/notice.py) and the page each notebook of a hand-in none of
whose notebooks can be read gets (kit/nbgrader_glue/unreadable_hand_in.py).
Each is small, readable at any width and zoom (the accessibility audit loads
both), and laid out in a folder as nbgrader lays out a student's feedback: the
hand-in's submission secret and time beside one `<notebook>.html` per notebook,
under the student's own file name, which is what their Fetch Feedback looks for
once release_feedback has released the folder.
"""

from __future__ import annotations

import html
import os
import shutil
import stat
from pathlib import Path

from kit.hand_in.secret import MAX_BYTES, SECRET
from kit.hand_in.tree import FILE

FRAME = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem;
color: #111; background: #fff; line-height: 1.5; overflow-wrap: anywhere; }}</style>
</head>
<body>
<main>
<h1>{heading}</h1>
{paragraphs}
</main>
</body>
</html>
"""


def plain_page(title: str, heading: str, *paragraphs: str) -> str:
    """The page: `title` and `heading` are text (escaped here); each paragraph is HTML its caller escaped."""
    return FRAME.format(title=html.escape(title), heading=html.escape(heading),
                        paragraphs="\n".join(f"<p>{p}</p>" for p in paragraphs))


def handed_in_at(submitted: Path) -> str:
    """The hand-in's time as collect stamped it (timestamp.txt), escaped; "" without one."""
    stamp = page_folder(submitted, {}).get("timestamp.txt", b"")
    return html.escape(stamp.decode("utf-8", errors="replace").strip())


def page_folder(submitted: Path, pages: dict[str, str]) -> dict[str, bytes]:
    """What `write_page_folder` writes: file name → bytes, the hand-in's secret and time among them (each only
    where it is a file of the hand-in, never what a link there points to)."""
    made = {}
    for name in (SECRET, "timestamp.txt"):
        try:
            fd = os.open(submitted / name, FILE)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as file:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                made[name] = file.read(MAX_BYTES)
    return made | {f"{notebook}.html": page.encode() for notebook, page in pages.items()}


def holds(folder: Path, made: dict[str, bytes]) -> bool:
    """Does `folder` hold exactly the files of `made`, with those bytes?"""
    try:
        return (sorted(p.name for p in folder.iterdir()) == sorted(made)
                and all((folder / name).read_bytes() == data for name, data in made.items()))
    except OSError:
        return False


def write_page_folder(folder: Path, made: dict[str, bytes]) -> None:
    """`folder` holding exactly `made`, written beside it and renamed into place: a process killed part-way leaves
    the folder as it was, or absent (the next run writes it), never some pages of one hand-in and some of another."""
    ready = folder.with_name(f".{folder.name}.being-written")
    if ready.exists():
        shutil.rmtree(ready)  # a killed run's
    ready.mkdir(parents=True)
    for name, data in made.items():
        (ready / name).write_bytes(data)
    if folder.exists():
        shutil.rmtree(folder)
    ready.rename(folder)
