"""What the notebooks share: the chapter's worked example and your own functions.

Nothing here is a solution: the worked example is the chapter's data (its
listing builds it from seed 28), and `my` loads the functions *you* wrote in
another notebook of this assignment.
"""

from __future__ import annotations

import traceback
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from judge import solution_namespace

TOKENS = ("pick", "up", "the", "cube")
HERE = Path(__file__).resolve().parent
FROM_NOTEBOOK = "__notebook__"  # in the globals of the functions `my` loads: the notebook they come from


def pick_up_the_cube() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The chapter's four tokens and three matrices, each (4, 4) float64.

    Returns (X, W_q, W_k, W_v), built exactly as the chapter's listing builds them.
    """
    rng = np.random.default_rng(28)
    X = np.round(rng.normal(0, 0.9, (4, 4)), 1)
    W_q, W_k, W_v = (np.round(rng.normal(0, 0.6, (4, 4)), 1) for _ in range(3))
    return X, W_q, W_k, W_v


@contextmanager
def demonstration(*functions: str):
    """The body of a demonstration cell that calls your `functions` (by name).

    A function still a stub prints "(shown once ... written)"; any other error
    prints one line naming the function of yours it came from (and which of
    yours called it), so a bug shows where it is and the notebook goes on.
    """
    try:
        yield
    except NotImplementedError as e:
        print(f"(shown once {_and(functions)} {'is' if len(functions) == 1 else 'are'} written)", e)
    except Exception as e:  # a bug in one of yours, or something of yours that returned what the cell cannot use
        print(f"({_what_went_wrong(e, functions)})")


def _what_went_wrong(error: Exception, functions) -> str:
    """One line on `error`: the function of yours it came from, innermost first ("your softmax,
    called by your attention, raised ..."), found in its traceback's frames, and where to fix it."""
    frames = [f for f, _ in traceback.walk_tb(error.__traceback__) if _yours(f, functions)]
    raised = f"{type(error).__name__}: {error}"
    piece = getattr(error, "piece", None)  # the model's own code names the piece whose return it cannot use
    if piece and not frames:
        return f"your {error}. Run the check of {piece}, fix what fails, save its notebook, then re-run the set-up cell and this one"
    if not frames:
        return (f"this demonstration stopped with {raised}. It could not use what {_and(functions)} returned: "
                "run their checks, fix what fails, then re-run this cell")
    chain = [f.f_code.co_name for f in frames]
    callers = [name for i, name in enumerate(chain[:-1]) if name != chain[i + 1]]
    who = ", called by ".join(f"your {name}" for name in [chain[-1], *reversed(callers)])
    elsewhere = frames[-1].f_globals.get(FROM_NOTEBOOK)  # set by `my` in the functions it loads
    fix = (f"Fix {chain[-1]} in {elsewhere}, save it, then re-run this notebook's set-up cell and this one"
           if elsewhere else f"Fix {chain[-1]}, re-run its cell, then this one")
    return f"{who}{',' if callers else ''} raised {raised}. {fix}"


def _yours(frame, functions) -> bool:
    """Is `frame` a call of one of your functions: one the cell names, or any that `my` loaded?"""
    name = frame.f_code.co_name
    return name in functions or (FROM_NOTEBOOK in frame.f_globals and not name.startswith("<"))


def _and(names) -> str:
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def my(notebook: str, *names: str):
    """Your own functions from another notebook of this assignment, read from its SAVED file.

    Runs only that notebook's answer cells (nothing else), so a demonstration
    there cannot slow or break this one. Edits you have not saved there are not
    seen: save that notebook and re-run the cell that calls this. Example:
    ``softmax, attention = my("03_softmax_and_mix", "softmax", "attention")``
    """
    namespace = solution_namespace(HERE / f"{notebook}.ipynb")
    namespace[FROM_NOTEBOOK] = f"{notebook}.ipynb"
    missing = [n for n in names if n not in namespace]
    if missing:
        errors = namespace.get("__cell_errors__", [])
        cause = ("Its answer cells failed:\n  " + "\n  ".join(errors) + f"\nFix that in {notebook}, save it"
                 if errors else f"Did you rename a function or delete its cell? Save {notebook}.ipynb")
        raise NameError(f"the saved {notebook}.ipynb defines no {', '.join(missing)}. {cause} "
                        "and re-run this cell (this reads the saved file, not the open tab).")
    found = [namespace[n] for n in names]
    return found[0] if len(found) == 1 else found


def your_attention():
    """Your attention functions from notebooks 02 to 05, as the pieces `explorer_model.forward` runs on.

    Loaded now; a function you have not written yet raises `NotStarted` when the model first calls it.
    """
    import explorer_model

    split_heads, multi_head_attention = my("04_heads", "split_heads", "multi_head_attention")
    return explorer_model.Pieces(
        scaled_scores=my("02_scores_and_scaling", "scaled_scores"),
        softmax=my("03_softmax_and_mix", "softmax"),
        split_heads=split_heads,
        causal_mask=my("05_masks_and_cross_attention", "causal_mask"),
        multi_head_attention=multi_head_attention,
    )
