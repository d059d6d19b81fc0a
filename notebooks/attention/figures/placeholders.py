"""The placeholder of a figure while a function it draws is not started: a box of text that names each
such function and the notebook that asks for it."""

from __future__ import annotations

import html
import json
from functools import cache
from pathlib import Path

from .drawing import _display

# Where each function is asked for ("03_softmax_and_mix"), so that a placeholder can
# point there: written beside this file by `make release` from the exercise registry.
NOTEBOOK_OF = Path(__file__).with_name("notebook_of.json")


@cache
def _notebook_of() -> dict[str, str]:
    return json.loads(NOTEBOOK_OF.read_text()) if NOTEBOOK_OF.exists() else {}


def _not_started(title: str, attempts) -> bool:
    """Draw the placeholder and say True when any function the figure needs is not started."""
    waiting = [a.name for a in attempts if a.state == "not started"]
    if not waiting:
        return False
    names = ", ".join(f"{n} (notebook {_notebook_of().get(n, '?').split('_')[0]})" for n in dict.fromkeys(waiting))
    text = (f"This figure draws your own code. Still to write: {names}. "
            "Write it, run its cell and its check, then run this cell again.")
    # A dashed box of text, not a picture: an untouched notebook never waits for matplotlib to load.
    lines = (f"Figure not drawn yet: {title}", text)
    box = ('<div style="display: inline-block; max-width: 56em; padding: 0.2em 1em; border: 1px dashed grey; '
           'border-radius: 0.5em">' + "".join(f"<p>{html.escape(line)}</p>" for line in lines) + "</div>")
    _display({"text/html": box}, f"Placeholder for the figure '{title}'. {text}")
    return True
