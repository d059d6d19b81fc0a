"""The chapter's pictures, drawn from your own functions.

Each figure calls the functions *you* wrote on the chapter's worked example
and draws what they return, so a wrong function looks wrong:

* while a function it needs is not started, the figure is a placeholder that
  says what to write (a box of text: matplotlib is loaded only to draw);
* once your drawing differs from the chapter's, the chapter's drawing is put
  beside yours, every difference is marked (a dashed outline and ≠ on a grid,
  a labelled connector on a curve) and the check's message is printed under it;
* when the two agree, only yours is drawn and the title says so.

Nothing here computes attention. The chapter's side of every picture is an
expected value of the visible checks (``worked_example.npz``, the file the
check cells read) or a number the chapter prints.

Colours come from viridis, which runs from dark to light in greyscale and
reads the same for colour-blind eyes; every value that matters is also
written as a label, a pattern or a marker shape.
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import math
import textwrap
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from judge import VISIBLE_CASES, call, load_cases, outcome_of, verdict
from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell
from workbook import TOKENS

__all__ = ["tokens_before_after", "score_grid", "score_spread", "largest_weight", "cube_weights",
           "weight_grid", "softmax_lead", "convolution_vs_attention", "near_and_far", "two_heads", "causal_mask",
           "padding_mask", "block_mask", "cost", "memory"]

# Where each function is asked for ("03_softmax_and_mix"), so that a placeholder can
# point there: written beside this file by `make release` from the exercise registry.
NOTEBOOK_OF = Path(__file__).with_name("notebook_of.json")

# Numbers the chapter prints (its simulations used their own seeds, so yours
# may differ from these by noise; the marks allow for that).
CHAPTER_SPREAD = {"raw": {4: 2.04, 1024: 31.85}, "scaled": {4: 1.02, 16: 1.00, 64: 1.00, 256: 1.00, 1024: 1.00}}
CHAPTER_LARGEST = {"raw": {4: 0.293, 1024: 0.941}, "scaled": {4: 0.11, 16: 0.11, 64: 0.11, 256: 0.11, 1024: 0.11}}
CHAPTER_LEAD = {0.0: 0.500, 1.0: 0.731, 4.0: 0.982}
CHAPTER_HEADS = (0.691, 0.360)  # each head's average largest weight
CHAPTER_GRID_STEPS = {128: 0.03e9, 32768: 1649e9}  # printed in billions, rounded
CHAPTER_CROSSOVER = 1536  # tokens, twice the width 768
CHAPTER_GRID_BYTES = {512: 6 * 2**20, 2048: 96 * 2**20, 8192: 1.5 * 2**30, 32768: 24 * 2**30}
HEAD_SIZES = (4, 16, 64, 256, 1024)
GROUPS = ("picture", "words", "joint", "actions")

CMAP = "viridis"
STYLE = {"font.size": 10, "axes.titlesize": 10, "figure.titlesize": 11, "axes.spines.top": False,
         "axes.spines.right": False, "hatch.linewidth": 0.8, "figure.dpi": 100, "savefig.dpi": 110}
YOURS = 0.25  # your bars and curves: a dark viridis blue; the chapter's are hatched white or hollow black


# ---------------------------------------------------------------- your functions, judged


@dataclass
class Attempt:
    """One of your functions on one visible case."""
    name: str
    state: str           # "not started", "raised", "wrong" or "right"
    value: object = None  # what it returned (None unless it returned)
    message: str = ""    # what the check cell says about it ("" when right)


@cache
def _notebook_of() -> dict[str, str]:
    return json.loads(NOTEBOOK_OF.read_text()) if NOTEBOOK_OF.exists() else {}


@cache
def _cases() -> list[dict]:
    return load_cases(VISIBLE_CASES)


def _case(name: str, index: int = 0) -> dict:
    """The index-th visible case of `name` that has an expected value."""
    return [c for c in _cases() if c["func"] == name and "expected" in c][index]


def _attempt(name: str, func, case: dict) -> Attempt:
    outcome = outcome_of(func, case)
    problem = verdict(f"{name} on {case['label']}", outcome, case) or ""
    if outcome.has_value:
        return Attempt(name, "wrong" if problem else "right", outcome.value, problem)
    return Attempt(name, outcome.kind, None, problem)


def _value(func, *args, **kwargs):
    """Your function on other inputs: (value, None) or (None, what happened)."""
    outcome = call(func, args, kwargs)
    if outcome.has_value:
        return outcome.value, None
    return None, outcome.message if outcome.not_started else f"it raised {outcome.error}: {outcome.message}"


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


# ---------------------------------------------------------------- drawing helpers


@cache
def _mpl():
    # On a new machine the first import builds a font cache and says so on
    # stderr, which is not a problem of the student's code.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    import matplotlib
    import matplotlib.colors
    import matplotlib.patches
    import matplotlib.ticker
    return matplotlib


def _style():
    return _mpl().rc_context(STYLE)


def _new_figure(width, height):
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout="constrained")


def _show(fig, description: str) -> None:
    """Display `fig` as a PNG with `description`, the numbers it shows, as its text form: the image's alt
    text (JupyterLab gives an image/png output none, so the image is HTML) and the plain-text output."""
    png = base64.b64encode(_png(fig)).decode("ascii")
    _display({"text/html": f'<img src="data:image/png;base64,{png}" alt="{html.escape(description)}">'}, description)


def _display(data: dict, description: str) -> None:
    """Display `data` (mimetype: content) with `description` as its text form."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:  # plain Python: the sentence is all there is to show
        print(description)  # (IPython's display would print the whole dict of mimetypes there)
        return
    display({**data, "text/plain": description}, raw=True)


def _png(fig, margin: float = 0.1) -> bytes:
    """`fig` as PNG bytes, cropped to what is drawn plus `margin` inches of background.

    The look of ``savefig(bbox_inches="tight", pad_inches=margin)`` at one drawing:
    savefig lays the figure out and measures every artist once more before it draws,
    about a fifth of the cost of each figure. When something drawn reaches the
    canvas's edge (a long label the layout could not fit), it may go beyond it,
    and only savefig's measuring shows it whole: that figure is saved by savefig.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import to_rgba
    from matplotlib.image import imsave

    dpi = STYLE["savefig.dpi"]
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # lays the figure out (constrained layout), then draws it
    drawn = np.asarray(canvas.buffer_rgba())
    background = np.round(np.array(to_rgba(fig.get_facecolor())) * 255).astype(np.uint8)
    rows, cols = np.nonzero((drawn != background).any(axis=-1))
    if rows.size and (min(rows.min(), cols.min()) == 0 or rows.max() == drawn.shape[0] - 1
                      or cols.max() == drawn.shape[1] - 1):
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=margin)
        return buffer.getvalue()
    if rows.size:
        drawn = drawn[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    pad = round(margin * dpi)
    pixels = np.empty((drawn.shape[0] + 2 * pad, drawn.shape[1] + 2 * pad, 4), np.uint8)
    pixels[:] = background
    pixels[pad:pad + drawn.shape[0], pad:pad + drawn.shape[1]] = drawn
    buffer = io.BytesIO()
    imsave(buffer, pixels, format="png", dpi=dpi)
    return buffer.getvalue()


def _finish(fig, title: str, differs: bool | None, messages=()) -> None:
    verdict_line = {None: "", False: "yours matches the chapter",
                    True: "yours differs from the chapter's (beside it): differences marked ≠"}[differs]
    chars = int(fig.get_figwidth() * 10.5)
    title = title.replace("chapter section ", "chapter\u00a0section\u00a0")  # never broken apart
    fig.suptitle(textwrap.fill(title, chars) + (f"\n{verdict_line}" if verdict_line else ""))
    notes = list(dict.fromkeys(m.replace("\n", " ") for m in messages if m))[:3]
    if notes:
        chars = int(fig.get_figwidth() * 15)
        text = "\n".join(textwrap.fill(textwrap.shorten(m, 330), chars) for m in notes)
        fig.set_figheight(fig.get_figheight() + 0.16 * (text.count("\n") + 1))
        fig.supxlabel(text, fontsize=8.5, x=0.01, ha="left")


def _panel_note(ax, text: str) -> None:
    """Write `text` in place of a drawing that cannot be made."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, textwrap.fill(text, 38), transform=ax.transAxes, ha="center", va="center", fontsize=9,
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "black", "linestyle": "--"})


def _as_grid(value, shape) -> tuple[np.ndarray | None, str]:
    """Your value as floats of `shape`, ready to draw, with a note; or None and why not."""
    if not isinstance(value, np.ndarray):
        return None, f"cannot draw {_kind(value)} as a grid of shape {shape}"
    if value.dtype.kind not in "biuf":
        return None, f"cannot draw an array of dtype {value.dtype}"
    if value.shape != tuple(shape):
        if value.size != math.prod(shape):
            return None, f"cannot draw your shape {value.shape} as the chapter's {tuple(shape)}"
        return value.reshape(shape).astype(np.float64), f"drawn from your shape {value.shape}"
    return value.astype(np.float64), ""


def _kind(x) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    return type(x).__name__


def _numbers(values) -> np.ndarray:
    """Floats to plot: anything that is not a real number becomes NaN (not drawn)."""
    out = []
    for v in values:
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        out.append(float(v) if ok and np.isfinite(float(v)) else np.nan)
    return np.array(out)


def _signed(x: float, digits: int = 2) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "+∞" if x > 0 else "−∞"
    text = f"{x:+.{digits}f}"
    if float(text) == 0:  # no "−0.00"
        text = f"{0:+.{digits}f}"
    return text.replace("-", "−")


def _plain(x: float, digits: int = 3) -> str:
    return _signed(x, digits).lstrip("+")


def _text_colour(cmap, norm, v) -> str:
    """Black or white, whichever contrasts more with the cell's colour (at least 4.58:1 for any colour)."""
    if not np.isfinite(v):
        return "black"
    return readable_on(cmap(norm(v)))


def luminance(rgba) -> float:
    """WCAG 2.1's relative luminance of an (r, g, b, ...) colour in 0..1."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def readable_on(rgba) -> str:
    """The text colour, black or white, of the higher WCAG contrast ratio on `rgba`."""
    shade = luminance(rgba)
    return "black" if (shade + 0.05) / 0.05 >= 1.05 / (shade + 0.05) else "white"


def _mark(ax, i, j) -> None:
    """Outline cell (i, j) as different: a dashed black line over a white one, and ≠."""
    patches = _mpl().patches
    ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="white", lw=3.5))
    ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", lw=1.8,
                                   linestyle=(0, (3, 2))))
    ax.text(j + 0.45, i - 0.45, "≠", ha="right", va="top", fontsize=9, weight="bold",
            bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none"})


def _heatmap(ax, grid, *, rows, cols, fmt, vmin, vmax, title, xlabel, ylabel, wrong=None, bar_label=None):
    matplotlib = _mpl()
    cmap = matplotlib.colormaps[CMAP]
    norm = matplotlib.colors.Normalize(vmin, vmax)
    image = ax.imshow(grid, cmap=cmap, norm=norm)
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, fmt(v), ha="center", va="center", fontsize=9, color=_text_colour(cmap, norm, v))
    if wrong is not None:
        for i, j in zip(*np.nonzero(wrong)):
            _mark(ax, i, j)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if bar_label:
        ax.figure.colorbar(image, ax=ax, shrink=0.8, label=bar_label)
    return image


def _range(*grids) -> tuple[float, float]:
    finite = np.concatenate([g[np.isfinite(g)].ravel() for g in grids if g is not None] + [np.zeros(0)])
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    return (low, high) if high > low else (low - 1, high + 1)


def _grid_figure(title, attempt, case, *, rows, cols, fmt, xlabel, ylabel, bar_label, pick=lambda v: v,
                 size=(4.6, 3.6), alt="", scale=None):
    """Yours as a labelled heat map; the chapter's beside it when they differ."""
    expected = pick(case["expected"])
    yours, note = _as_grid(pick(attempt.value) if attempt.state != "raised" else None, expected.shape)
    if attempt.state == "raised":
        note = attempt.message
    differs = attempt.state != "right"
    wrong = wrong_where(yours, expected) if yours is not None else None
    vmin, vmax = scale or _range(yours, expected if differs else None)
    with _style():
        fig = _new_figure(size[0] * (2 if differs else 1), size[1])
        axes = fig.subplots(1, 2 if differs else 1, squeeze=False)[0]
        common = dict(rows=rows, cols=cols, fmt=fmt, vmin=vmin, vmax=vmax, xlabel=xlabel, ylabel=ylabel)
        if yours is None:
            _panel_note(axes[0], note)
        else:
            _heatmap(axes[0], yours, title="yours" + (f" ({note})" if note else ""), wrong=wrong,
                     bar_label=None if differs else bar_label, **common)
        if differs:
            _heatmap(axes[1], expected, title="the chapter's", bar_label=bar_label, **common)
        _finish(fig, title, differs, [attempt.message])
        _show(fig, f"{title}. Yours: {_grid_text(yours, fmt)}" + (f" The chapter's: {_grid_text(expected, fmt)}"
                                                                  if differs else " It matches the chapter.") + alt)


def _grid_text(grid, fmt) -> str:
    if grid is None:
        return "not drawn."
    return "; ".join(" ".join(fmt(v) for v in row) for row in np.atleast_2d(grid)) + "."


def _curve_gap(ax, x, yours, theirs, text) -> None:
    """Join your point to the chapter's with a labelled dashed connector."""
    ax.annotate("", xy=(x, theirs), xytext=(x, yours),
                arrowprops={"arrowstyle": "<->", "linestyle": "--", "color": "black", "lw": 1.2})
    ax.annotate(text, xy=(x, math.sqrt(abs(yours * theirs)) if ax.get_yscale() == "log" else (yours + theirs) / 2),
                xytext=(6, 0), textcoords="offset points", fontsize=8, va="center",
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})


def _chapter_points(ax, points: dict, label: str, marker="D") -> None:
    xs, ys = list(points), list(points.values())
    ax.plot(xs, ys, linestyle="none", marker=marker, markersize=9, markerfacecolor="none",
            markeredgecolor="black", markeredgewidth=1.4, label=label)


# ---------------------------------------------------------------- section 1: the four tokens


def tokens_before_after(token_movement) -> None:
    """The four tokens before and after attention, and your movement column.

    "After" is the chapter's attention output, as the visible check of
    token_movement gives it; the movement column is your token_movement.
    """
    title = "The four tokens before and after attention, and how far each moved (chapter section 1)"
    case = _case("token_movement")
    attempt = _attempt("token_movement", token_movement, case)
    if _not_started(title, [attempt]):
        return
    X, O = case["args"]
    expected = case["expected"]
    yours, note = _as_grid(attempt.value, expected.shape) if attempt.state != "raised" else (None, attempt.message)
    differs = attempt.state != "right"
    with _style():
        columns = 4 if differs else 3
        fig = _new_figure(3.1 * 2 + 1.9 * (columns - 2), 3.7)
        axes = fig.subplots(1, columns, width_ratios=[4, 4] + [1.6] * (columns - 2))
        low, high = _range(X, O)
        numbers = [f"{k}" for k in range(1, X.shape[1] + 1)]
        for ax, grid, name in ((axes[0], X, "before: the token's own vector"), (axes[1], O, "after attention")):
            _heatmap(ax, grid, rows=TOKENS, cols=numbers, fmt=_signed, vmin=low, vmax=high, title=name,
                     xlabel="number in the vector", ylabel="token" if ax is axes[0] else None)
        axes[1].set_yticklabels([])
        top = max(_range(expected, yours)[1], 1e-9)
        movement = dict(rows=TOKENS, cols=[""], fmt=_plain, vmin=0.0, vmax=top, xlabel="mean of\n|after − before|",
                        ylabel=None)
        if yours is None:
            _panel_note(axes[2], note or attempt.message)
        else:
            _heatmap(axes[2], yours[:, None], title="movement:\nyours" + (f"\n({note})" if note else ""),
                     wrong=wrong_where(yours, expected)[:, None], **movement)
            axes[2].set_yticklabels([])
        if differs:
            _heatmap(axes[3], expected[:, None], title="movement:\nthe chapter's", **movement)
            axes[3].set_yticklabels([])
        _finish(fig, title, differs, [attempt.message])
        _show(fig, f"{title}. Your movement per token: {_grid_text(yours, _plain)} "
                   f"The chapter's runs from 0.41 (the) to 0.84 (pick).")


# ---------------------------------------------------------------- section 3: scores and scaling


def score_grid(scores, scaled: bool = False) -> None:
    """Your raw_scores (or scaled_scores, with scaled=True) on the worked example, as a heat map."""
    name = "scaled_scores" if scaled else "raw_scores"
    title = (f"Your {name}: every query against every key" + (", divided by √d_k = 2" if scaled else "")
             + " (chapter section 3)")
    case = _case(name)
    attempt = _attempt(name, scores, case)
    if _not_started(title, [attempt]):
        return
    _grid_figure(title, attempt, case, rows=TOKENS, cols=TOKENS, fmt=_signed,
                 xlabel="key (the token that answers)", ylabel="query (the token that asks)",
                 bar_label="scaled score" if scaled else "raw score (dot product)",
                 alt=" The chapter's largest is " + ("+2.96." if scaled else "+5.92 and its smallest −5.68."))


def _simulation(title, func, name, run, chapter, ylabel, *, log_y, guide=None, floor=None) -> None:
    """Your simulation at the chapter's head sizes, raw and scaled; the chapter's values beside it."""
    attempts = [_attempt(name, func, _case(name, i)) for i in range(2)]
    if _not_started(title, attempts):
        return
    values = {"raw": [], "scaled": []}
    problem = None
    for d_k in HEAD_SIZES:
        raw, scaled, problem = run(d_k)
        if problem:
            break
        values["raw"].append(raw)
        values["scaled"].append(scaled)
    values = {k: _numbers(v) for k, v in values.items()}
    # A simulation is noisy: a point is marked when it is more than 8% (and 0.02) away from the chapter's.
    gaps = {k: {d: (y, chapter[k][d]) for d, y in zip(HEAD_SIZES, values[k])
                if d in chapter[k] and not abs(y - chapter[k][d]) <= max(0.08 * chapter[k][d], 0.02)}
            for k in values}
    differs = any(a.state != "right" for a in attempts) or any(gaps.values()) or problem is not None
    matplotlib = _mpl()
    cmap = matplotlib.colormaps[CMAP]
    with _style():
        fig = _new_figure(5.2 * (2 if differs else 1), 3.9)
        axes = fig.subplots(1, 2 if differs else 1, squeeze=False, sharey=True)[0]
        for ax in axes:
            ax.set_xscale("log", base=2)
            if log_y:
                ax.set_yscale("log", base=2)
                ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.set_xticks(HEAD_SIZES, [str(d) for d in HEAD_SIZES])
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            ax.set(xlabel="head size d_k (log scale)", ylabel=ylabel if ax is axes[0] else None)
            if guide:
                guide(ax)
            ax.grid(True, which="major", alpha=0.3)
        ax = axes[0]
        ax.set_title("yours")
        if problem:
            _panel_note(ax, f"your {name} at head size {d_k}: {problem}")
        else:
            ax.plot(HEAD_SIZES, values["raw"], "o-", color=cmap(YOURS), lw=2, label="raw scores (yours)")
            ax.plot(HEAD_SIZES, values["scaled"], "s--", color=cmap(0.6), lw=2, label="scaled by √d_k (yours)")
            for kind, points in gaps.items():
                for d, (y, c) in points.items():
                    if np.isfinite(y) and (not log_y or y > 0):
                        _curve_gap(ax, d, y, c, f"≠ chapter {c:g}")
            _chapter_points(ax, chapter["raw"], "raw (chapter)")
            _chapter_points(ax, chapter["scaled"], "scaled (chapter)", marker="s")
            ax.legend(loc="upper left", fontsize=8)
        if differs:
            axes[1].set_title("the chapter's")
            _chapter_points(axes[1], chapter["raw"], "raw scores (chapter)")
            _chapter_points(axes[1], chapter["scaled"], "scaled by √d_k (chapter)", marker="s")
            axes[1].legend(loc="upper left", fontsize=8)
        if floor is not None:
            for ax in axes:
                ax.set_ylim(bottom=floor)
        messages = [a.message for a in attempts] + ([f"your {name}: {problem}"] if problem else [])
        _finish(fig, title, differs, messages)
        shown = "; ".join(f"head size {d}: raw {r:.3g}, scaled {s:.3g}"
                          for d, r, s in zip(HEAD_SIZES, values["raw"], values["scaled"]))
        _show(fig, f"{title}. Yours: {shown or 'not drawn'}. The chapter's: raw {chapter['raw']}, "
                   f"scaled {chapter['scaled']}.")


def score_spread(score_spread) -> None:
    """Your score_spread at the chapter's five head sizes, 10,000 pairs each, on log axes."""
    def run(d_k):
        value, problem = _value(score_spread, d_k, 10_000, np.random.default_rng(3))
        if problem:
            return None, None, problem
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            return None, None, f"expected (raw_std, scaled_std), got {_kind(value)}"
        return value[0], value[1], None

    def guide(ax):
        ax.plot(HEAD_SIZES, [math.sqrt(d) for d in HEAD_SIZES], ":", color="grey", lw=1.5, label="√d_k")
        ax.annotate("√d_k", (256, 16), xytext=(-4, 6), textcoords="offset points", ha="right", color="dimgrey")

    _simulation("The spread of the scores grows like √d_k until it is divided by √d_k (chapter section 3)",
                score_spread, "score_spread", run, CHAPTER_SPREAD, "spread of the scores (standard deviation)",
                log_y=True, guide=guide)


def largest_weight(largest_weight) -> None:
    """Your largest_weight with 64 keys, raw and scaled, 200 trials per head size."""
    def run(d_k):
        raw, problem = _value(largest_weight, d_k, 64, False, 200, np.random.default_rng(4))
        if problem:
            return None, None, problem
        scaled, problem = _value(largest_weight, d_k, 64, True, 200, np.random.default_rng(4))
        return raw, scaled, problem

    def guide(ax):
        ax.axhline(1 / 64, color="grey", linestyle=":", lw=1.5)
        ax.annotate("an even split: 1/64", (4, 1 / 64), xytext=(2, 4), textcoords="offset points",
                    color="dimgrey", fontsize=8)

    _simulation("The largest weight among 64 keys: raw scores pick one key, scaled ones do not (chapter section 3)",
                largest_weight, "largest_weight", run, CHAPTER_LARGEST, "largest weight (share of the winning key)",
                log_y=False, guide=guide, floor=0)


# ---------------------------------------------------------------- section 4: softmax and the mix


def cube_weights(softmax) -> None:
    """The four weights of "cube" from your softmax of its scaled scores, as bars."""
    title = 'The weights "cube" gives the four tokens: your softmax of its scaled scores (chapter section 4)'
    case = _case("softmax")
    attempt = _attempt("softmax", softmax, case)
    if _not_started(title, [attempt]):
        return
    expected = case["expected"][3]
    grid, note = (_as_grid(attempt.value, case["expected"].shape) if attempt.state != "raised"
                  else (None, attempt.message))
    yours = None if grid is None else grid[3]
    differs = attempt.state != "right"
    cmap = _mpl().colormaps[CMAP]
    with _style():
        fig = _new_figure(7.5, 3.8)
        ax = fig.add_subplot()
        x = np.arange(4)
        width = 0.38 if differs else 0.6
        if yours is not None:
            heights = np.nan_to_num(yours, nan=0.0, posinf=0.0, neginf=0.0)
            bars = ax.bar(x - (width / 2 if differs else 0), heights, width, color=cmap(YOURS), label="yours")
            wrong = wrong_where(yours, expected) if differs else np.zeros(4, bool)
            ax.bar_label(bars, [_plain(v) + (" ≠" if w else "") for v, w in zip(yours, wrong)], padding=2,
                         fontsize=9)
            ax.text(3.45, 0.92, f"yours add up to {_plain(float(np.nansum(yours)))}", ha="right", fontsize=9)
        else:
            ax.text(1.5, 0.5, textwrap.fill(note or attempt.message, 60), ha="center", fontsize=9)
        if differs:
            bars = ax.bar(x + width / 2, expected, width, facecolor="white", edgecolor="black", hatch="//",
                          label="the chapter's")
            ax.bar_label(bars, [_plain(v) for v in expected], padding=2, fontsize=9)
            ax.legend(loc="upper center")
        ax.set_xticks(x, [f'"{t}"' for t in TOKENS])
        low = min(0.0, float(np.nanmin(yours)) if yours is not None and np.isfinite(yours).any() else 0.0)
        ax.set(ylim=(low, 1.05), xlabel="key (the token that answers)", ylabel="weight (share of the mix)")
        _finish(fig, title, differs, [attempt.message])
        _show(fig, f"{title}. Yours: {_grid_text(yours, _plain)} The chapter's: 0.683 0.103 0.168 0.046.")


def weight_grid(softmax) -> None:
    """Your softmax of the whole scaled score grid: one row of weights per token."""
    title = "Your softmax of every row: the weight grid, each row adds up to 1 (chapter section 4)"
    case = _case("softmax")
    attempt = _attempt("softmax", softmax, case)
    if _not_started(title, [attempt]):
        return
    _grid_figure(title, attempt, case, rows=TOKENS, cols=TOKENS, fmt=_plain,
                 xlabel="key (the token that answers)", ylabel="query (the token that asks)", bar_label="weight",
                 scale=(0.0, 1.0))


def softmax_lead(softmax) -> None:
    """Two keys, one ahead by `lead`: the weight your softmax gives the leader."""
    title = "How much a lead is worth: the leader's weight between two keys (chapter section 4)"
    attempt = _attempt("softmax", softmax, _case("softmax"))
    if _not_started(title, [attempt]):
        return
    leads = np.linspace(0, 6, 61)
    value, problem = _value(softmax, np.stack([leads, np.zeros_like(leads)], axis=1))
    grid, note = (None, problem) if problem else _as_grid(value, (61, 2))
    yours = None if grid is None else grid[:, 0]
    at = {lead: yours[int(round(lead * 10))] for lead in CHAPTER_LEAD} if yours is not None else {}
    gaps = {lead: (y, CHAPTER_LEAD[lead]) for lead, y in at.items() if not abs(y - CHAPTER_LEAD[lead]) <= 0.0006}
    differs = bool(gaps) or yours is None
    cmap = _mpl().colormaps[CMAP]
    with _style():
        fig = _new_figure(6.8 * (1.6 if differs else 1), 3.8)
        axes = fig.subplots(1, 2 if differs else 1, squeeze=False, sharey=True)[0]
        for ax in axes:
            ax.axhline(0.5, color="grey", linestyle=":", lw=1.2)
            ax.set(xlabel="lead of one key over the other (score points)", ylim=(0, 1.05), xlim=(-0.2, 6.2))
            ax.grid(True, alpha=0.3)
        axes[0].set_ylabel("weight of the leading key")
        if yours is None:
            _panel_note(axes[0], f"your softmax on rows of two scores: {note}")
        else:
            axes[0].plot(leads, np.where(np.isfinite(yours), yours, np.nan), "-", color=cmap(YOURS), lw=2.5,
                         label="yours")
            axes[0].plot(list(at), list(at.values()), "o", color=cmap(YOURS))
            for lead, y in at.items():
                axes[0].annotate(_plain(y), (lead, y), xytext=(6, -14 if y > 0.15 else 8), textcoords="offset points",
                                 fontsize=9)
            for lead, (y, c) in gaps.items():
                if np.isfinite(y):
                    _curve_gap(axes[0], lead, y, c, f"≠ chapter {c:.3f}")
            axes[0].set_title("yours")
            axes[0].legend(loc="lower right")
        if differs:
            _chapter_points(axes[1], CHAPTER_LEAD, "the chapter's", marker="o")
            for lead, c in CHAPTER_LEAD.items():
                axes[1].annotate(f"{c:.3f}", (lead, c), xytext=(6, -14), textcoords="offset points", fontsize=9)
            axes[1].set_title("the chapter's (the values it prints)")
            axes[1].legend(loc="lower right")
        _finish(fig, title, differs, [attempt.message if attempt.state != "right" else "",
                                      f"your softmax on rows of two scores: {problem}" if problem else ""])
        shown = ", ".join(f"lead {lead:g}: {_plain(y)}" for lead, y in at.items())
        _show(fig, f"{title}. Yours: {shown or 'not drawn'}. The chapter's: lead 0: 0.500, lead 1: 0.731, "
                   "lead 4: 0.982.")


def convolution_vs_attention(attention) -> None:
    """A convolution's fixed weights beside the weights of your attention."""
    title = "A convolution mixes by position, attention by content: their weights side by side (chapter section 1)"
    case = _case("attention")
    attempt = _attempt("attention", attention, case)
    if _not_started(title, [attempt]):
        return
    expected = case["expected"][1]
    value = attempt.value[1] if isinstance(attempt.value, (tuple, list)) and len(attempt.value) == 2 else attempt.value
    yours, note = _as_grid(value, expected.shape) if attempt.state != "raised" else (None, attempt.message)
    differs = attempt.state != "right"
    # An illustrative convolution: the token before, the token itself and the one after, fixed in advance.
    kernel = (0.25, 0.5, 0.25)
    conv = np.full((4, 4), np.nan)
    for i in range(4):
        for offset, w in zip((-1, 0, 1), kernel):
            if 0 <= i + offset < 4:
                conv[i, i + offset] = w
    with _style():
        panels = 3 if differs else 2
        fig = _new_figure(4.3 * panels, 3.9)
        axes = fig.subplots(1, panels)
        common = dict(rows=TOKENS, cols=TOKENS, vmin=0.0, vmax=1.0, xlabel="input token (read from)")
        _heatmap(axes[0], conv, fmt=lambda v: "·" if np.isnan(v) else f"{v:.2f}",
                 title="a convolution: 0.25, 0.50, 0.25\nfixed before any word is seen", ylabel="output token",
                 **common)
        if yours is None:
            _panel_note(axes[1], note)
        else:
            _heatmap(axes[1], yours, fmt=_plain, wrong=wrong_where(yours, expected),
                     title="your attention's weights\nworked out from what the tokens contain",
                     ylabel=None, bar_label=None if differs else "weight", **common)
        if differs:
            _heatmap(axes[2], expected, fmt=_plain, title="the chapter's attention weights", ylabel=None,
                     bar_label="weight", **common)
        _finish(fig, title, differs, [attempt.message])
        _show(fig, f"{title}. Convolution rows: 0.25 before, 0.50 itself, 0.25 after (· outside the sentence). "
                   f"Your attention's weights: {_grid_text(yours, _plain)}")


def _sentence_with_pick(X, W_q, W_k, back: int, n: int = 94) -> np.ndarray:
    """n tokens ending in "up the cube", "pick" `back` places before "cube", every other token a
    filler whose key meets the query of "cube" at a scaled score of −12 (notebook 03's demonstration)."""
    u = W_k @ (X[3] @ W_q)
    filler = -u * (2 * 12 / (u @ u))
    T = np.array([filler] * (n - 3) + list(X[1:]))
    T[-1 - back] = X[0]
    return T


def near_and_far(attention) -> None:
    """The weight "cube" gives each of 94 tokens, "pick" 3 or 90 places back, from your attention."""
    title = ('One layer, near and far: the weight "cube" gives each of 94 tokens when "pick" stands 3 or 90 '
             'places back (chapter section 1)')
    attempt = _attempt("attention", attention, _case("attention"))
    if _not_started(title, [attempt]):
        return
    from workbook import pick_up_the_cube

    X, W_q, W_k, W_v = pick_up_the_cube()
    rows, notes = {}, {}
    for back in (3, 90):
        T = _sentence_with_pick(X, W_q, W_k, back)
        value, problem = _value(attention, T @ W_q, T @ W_k, T @ W_v)
        weights = value[1] if isinstance(value, (tuple, list)) and len(value) == 2 else value
        grid, note = (None, problem) if problem else _as_grid(weights, (94, 94))
        if grid is None:
            notes[back] = f"your attention on these 94 tokens: {note}"
        else:
            rows[back] = grid[-1, ::-1]  # by places back from "cube": 0 is "cube" itself
    cmap = _mpl().colormaps[CMAP]
    back_of = np.arange(94)
    with _style():
        fig = _new_figure(10.5, 3.7)
        axes = fig.subplots(1, 2, sharey=True)
        for ax, back in zip(axes, (3, 90)):
            ax.set(xlabel='places back from "cube"', xlim=(-3, 96), ylim=(0, 1.0))
            ax.grid(True, axis="y", alpha=0.3)
            if back not in rows:
                _panel_note(ax, notes[back])
                continue
            row = np.nan_to_num(rows[back], nan=0.0, posinf=0.0, neginf=0.0)
            ax.vlines(back_of, 0, row, color=cmap(YOURS), lw=2.2, label="your attention's weights")
            ax.plot([0, 1], [0.5, 0.25], "o", mfc="none", mec="black", ms=7,
                    label="a convolution 0.25, 0.50, 0.25")
            ax.annotate(f'"pick": {_plain(float(row[back]))}', (back, row[back]), xytext=(-4 if back > 50 else 8, 6),
                        textcoords="offset points", ha="right" if back > 50 else "left", fontsize=9)
            ax.set_title(f'"pick" {back} places back: on average "cube" reads '
                         f'{_plain(float((row * back_of).sum()), 2)} places back')
        axes[0].set_ylabel('weight "cube" gives the token')
        axes[0].legend(loc="upper right", fontsize=8.5)
        _finish(fig, title, None, [attempt.message, *notes.values()])
        shown = "; ".join(f'"pick" {back} back: weight {_plain(float(rows[back][back]))}' for back in rows)
        _show(fig, f"{title}. Yours: {shown or 'not drawn'}. A convolution of width 3 gives nothing past 1 place.")


# ---------------------------------------------------------------- section 5: heads


def two_heads(split_heads, attention) -> None:
    """The weight grids of the worked example's two heads, from your split_heads and attention."""
    title = "Two heads, two patterns: the weight grid of each head (chapter section 5)"
    Q, K, V = _case("attention")["args"]
    attempts = [_attempt("split_heads", split_heads, _case("split_heads")),
                _attempt("attention", attention, _case("attention"))]
    if _not_started(title, attempts):
        return
    heads, problem = [], None
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        value, problem = _value(split_heads, M.copy(), 2)
        if problem:
            problem = f"split_heads({name}, 2): {problem}"
            break
        heads.append(value)
    grid, note = None, problem
    if not problem:
        value, problem = _value(attention, *heads)
        if problem:
            note = f"attention on your heads: {problem}"
        else:
            weights = value[1] if isinstance(value, (tuple, list)) and len(value) == 2 else value
            grid, note = _as_grid(weights, (2, 4, 4))
    averages = [float(np.mean(np.max(g, axis=1))) for g in grid] if grid is not None else [np.nan, np.nan]
    gaps = [not abs(a - c) <= 0.0006 for a, c in zip(averages, CHAPTER_HEADS)]
    differs = any(a.state != "right" for a in attempts) or any(gaps) or grid is None
    with _style():
        fig = _new_figure(9.2 + (3.6 if differs else 0), 3.9)
        axes = fig.subplots(1, 3 if differs else 2, width_ratios=[4, 4, 3.2][:3 if differs else 2])
        for m, ax in enumerate(axes[:2]):
            if grid is None:
                _panel_note(ax, note or "")
                continue
            _heatmap(ax, grid[m], rows=TOKENS, cols=TOKENS, fmt=_plain, vmin=0.0, vmax=1.0,
                     title=f"your head {m + 1}: average largest weight {_plain(averages[m])}"
                           + (" ≠" if gaps[m] else ""),
                     xlabel="key (the token that answers)", ylabel="query (the token that asks)" if m == 0 else None,
                     bar_label="weight" if m == 1 else None)
        if differs:
            ax = axes[2]
            cmap = _mpl().colormaps[CMAP]
            x = np.arange(2)
            bars = ax.bar(x - 0.2, np.nan_to_num(averages), 0.4, color=cmap(YOURS), label="yours")
            ax.bar_label(bars, [_plain(a) for a in averages], padding=2, fontsize=9)
            bars = ax.bar(x + 0.2, CHAPTER_HEADS, 0.4, facecolor="white", edgecolor="black", hatch="//",
                          label="the chapter's")
            ax.bar_label(bars, [f"{c:.3f}" for c in CHAPTER_HEADS], padding=2, fontsize=9)
            ax.set_xticks(x, ["head 1", "head 2"])
            ax.set(ylim=(0, 1.1), ylabel="average largest weight",
                   title="the chapter prints one number per head")
            ax.legend(loc="upper right", fontsize=8)
        _finish(fig, title, differs, [a.message for a in attempts] + [note if grid is None else ""])
        _show(fig, f"{title}. Your average largest weights: {', '.join(_plain(a) for a in averages)}; "
                   "the chapter's: 0.691 and 0.360.")


# ---------------------------------------------------------------- section 6: masks


def _mask_codes(grid: np.ndarray) -> np.ndarray:
    """0 for a forbidden pair (−∞), 2 for an allowed one (0), 1 for anything else."""
    codes = np.ones(grid.shape)
    codes[grid == 0] = 2
    codes[np.isneginf(grid)] = 0
    return codes


def _mask_label(v: float) -> str:
    return "0" if v == 0 else "−∞" if np.isneginf(v) else _signed(v, 1).lstrip("+")


def _hatch(ax, cells: np.ndarray, hatch: str, colour: str) -> None:
    """Hatch the True cells of a 2-D grid, merging runs of rows that look alike."""
    patches = _mpl().patches
    open_runs: dict[tuple, int] = {}  # (first column, end column) -> the row where the run began
    for i, row in enumerate([*cells, np.zeros(cells.shape[1], bool)]):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], np.asarray(row, np.int8), [0]])))
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist()))
        for (a, b), top in list(open_runs.items()):
            if (a, b) not in runs:
                ax.add_patch(patches.Rectangle((a - 0.5, top - 0.5), b - a, i - top, fill=False, hatch=hatch,
                                               edgecolor=colour, lw=0))
                del open_runs[(a, b)]
        for run in runs:
            open_runs.setdefault(run, i)


def _mask_panel(ax, grid, *, title, rows, cols, xlabel, ylabel, labels=True, wrong=None):
    matplotlib = _mpl()
    cmap = matplotlib.colormaps[CMAP]
    colours = matplotlib.colors.ListedColormap([cmap(0.05), cmap(0.5), cmap(0.95)])
    codes = _mask_codes(grid)
    ax.imshow(codes, cmap=colours, vmin=-0.5, vmax=2.5, interpolation="nearest")
    _hatch(ax, codes == 0, "//", "white")
    _hatch(ax, codes == 1, "..", "black")
    if labels:
        for (i, j), v in np.ndenumerate(grid):
            ax.text(j, i, _mask_label(v), ha="center", va="center", fontsize=9,
                    color="white" if codes[i, j] == 0 else "black",
                    bbox={"boxstyle": "round,pad=0.1", "facecolor": cmap(0.05) if codes[i, j] == 0 else "white",
                          "edgecolor": "none", "alpha": 0.9})
    if wrong is not None:
        for i, j in zip(*np.nonzero(wrong)):
            _mark(ax, i, j)
    if rows is not None:
        ax.set_yticks(range(len(rows)), rows)
    if cols is not None:
        ax.set_xticks(range(len(cols)), cols)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)


def _mask_legend(fig) -> None:
    matplotlib = _mpl()
    cmap = matplotlib.colormaps[CMAP]
    handles = [matplotlib.patches.Patch(facecolor=cmap(0.95), edgecolor="black", label="0: allowed"),
               matplotlib.patches.Patch(facecolor=cmap(0.05), edgecolor="white", hatch="//",
                                        label="−∞: forbidden"),
               matplotlib.patches.Patch(facecolor=cmap(0.5), edgecolor="black", hatch="..",
                                        label="anything else (not a mask value)")]
    fig.legend(handles=handles, loc="outside right center", fontsize=8)


def _small_mask(title, name, func, *, rows, cols, xlabel, ylabel, shape, pick=lambda g: g, width=3.8):
    case = _case(name)
    attempt = _attempt(name, func, case)
    if _not_started(title, [attempt]):
        return
    expected = pick(case["expected"])
    value, note = _as_grid(attempt.value, case["expected"].shape) if attempt.state != "raised" else (None, "")
    yours = None if value is None else pick(value)
    if attempt.state == "raised" or yours is None:
        note = attempt.message if attempt.state == "raised" else note
    differs = attempt.state != "right"
    with _style():
        fig = _new_figure(width * (2 if differs else 1) + 2.2, shape)
        axes = fig.subplots(1, 2 if differs else 1, squeeze=False)[0]
        common = dict(rows=rows, cols=cols, xlabel=xlabel)
        if yours is None:
            _panel_note(axes[0], note)
        else:
            _mask_panel(axes[0], yours, title="yours" + (f" ({note})" if note else ""), ylabel=ylabel,
                        wrong=wrong_where(yours, expected), **common)
        if differs:
            _mask_panel(axes[1], expected, title="the chapter's", ylabel=None, **common)
        _mask_legend(fig)
        _finish(fig, title, differs, [attempt.message])
        _show(fig, f"{title}. Yours: {_grid_text(yours, _mask_label)}"
                   + (f" The chapter's: {_grid_text(expected, _mask_label)}" if differs else " It matches."))


def causal_mask(causal_mask) -> None:
    """Your causal_mask(4) on the four tokens."""
    _small_mask("Your causal mask: no token may read the tokens after it (chapter section 6)", "causal_mask",
                causal_mask, rows=TOKENS, cols=TOKENS, xlabel="key (the token that answers)",
                ylabel="query (the token that asks)", shape=3.6)


def padding_mask(padding_mask) -> None:
    """Your padding_mask for two sentences of true lengths 4 and 2, padded to 4."""
    _small_mask("Your padding mask: two sentences of lengths 4 and 2 in a grid of 4 (chapter section 6)",
                "padding_mask", padding_mask, rows=["sentence 1 (length 4)", "sentence 2 (length 2)"],
                cols=["1", "2", "3", "4"], xlabel="key position (the same row serves every query)", ylabel=None,
                shape=2.6, pick=lambda g: g[:, 0, :], width=4.6)


def block_mask(block_mask) -> None:
    """Your block_mask of the chapter's robot stream: 256 picture, 12 word, 1 joint and 8 action tokens."""
    title = "Your four-group mask: 256 picture, 12 word, 1 joint and 8 action tokens (chapter section 6)"
    case = _case("block_mask")
    attempt = _attempt("block_mask", block_mask, case)
    if _not_started(title, [attempt]):
        return
    sizes = [int(s) for s in case["args"][0]]
    expected = case["expected"]
    yours, note = _as_grid(attempt.value, expected.shape) if attempt.state != "raised" else (None, attempt.message)
    differs = attempt.state != "right"
    starts = np.concatenate([[0], np.cumsum(sizes)])
    zoom = slice(starts[1] - 6, starts[-1])  # the last few picture tokens, then every other token
    rows = []
    if yours is not None:
        rows.append(("yours", yours, wrong_where(yours, expected)))
    if differs:
        rows.append(("the chapter's", expected, None))
    with _style():
        fig = _new_figure(10.5, 4.6 * max(len(rows), 1))
        axes = fig.subplots(max(len(rows), 1), 2, squeeze=False, width_ratios=[1, 1])
        if yours is None:
            _panel_note(axes[0, 0], note)
            axes[0, 1].set_axis_off()
        for (who, grid, wrong), (overview, close) in zip(rows, axes[-len(rows):] if rows else []):
            allowed = int(np.sum(grid == 0))
            _mask_panel(overview, grid, title=f"{who}: all {grid.shape[0]} tokens\n{allowed:,} of "
                                              f"{grid.size:,} pairs allowed ({allowed / grid.size:.1%})",
                        rows=None, cols=None, xlabel="key token", ylabel="query token", labels=False)
            centres = (starts[:-1] + starts[1:]) / 2 - 0.5
            overview.set_xticks(centres[:1], GROUPS[:1])
            overview.set_yticks(centres[:1], GROUPS[:1])
            for s in starts[1:-1]:
                overview.axhline(s - 0.5, color="black", lw=0.6)
                overview.axvline(s - 0.5, color="black", lw=0.6)
            overview.add_patch(_mpl().patches.Rectangle((zoom.start - 0.5, zoom.start - 0.5), zoom.stop - zoom.start,
                                                        zoom.stop - zoom.start, fill=False, edgecolor="black",
                                                        lw=1.2, linestyle="--"))
            overview.annotate("zoomed on the right", (zoom.start, zoom.start), xytext=(-10, -12),
                              textcoords="offset points", ha="right", fontsize=8)
            part = grid[zoom, zoom]
            _mask_panel(close, part, title=f"{who}: the last {part.shape[0]} tokens", rows=None, cols=None,
                        xlabel="key token", ylabel="query token", labels=False)
            local = (starts[1:] + np.maximum(starts[:-1], zoom.start)) / 2 - zoom.start - 0.5
            names = [f"{g} ({n})" for g, n in zip(GROUPS, sizes)]
            close.set_xticks(local, names, rotation=30, ha="right")
            close.set_yticks(local, names)
            for s in starts[1:-1]:
                close.axhline(s - zoom.start - 0.5, color="black", lw=0.8)
                close.axvline(s - zoom.start - 0.5, color="black", lw=0.8)
            if wrong is not None and wrong.any():
                count = int(wrong.sum())
                i, j = np.argwhere(wrong)[0]
                overview.set_title(overview.get_title() + f"\n≠ {count:,} pairs differ, hatched ×, first at "
                                   f"({i}, {j})")
                for ax, cells in ((overview, wrong), (close, wrong[zoom, zoom])):
                    _hatch(ax, cells, "xx", "black")
        _mask_legend(fig)
        _finish(fig, title, differs, [attempt.message])
        summary = f"{int(np.sum(yours == 0)):,} of {yours.size:,} pairs allowed" if yours is not None else "not drawn"
        _show(fig, f"{title}. Yours: {summary}. The chapter's: 74,309 of 76,729 pairs allowed (96.8%): the "
                   "actions read everything, the joint token reads the picture, the words and itself, the picture "
                   "and the words read each other, nothing but the actions reads the actions.")


# ---------------------------------------------------------------- section 7: cost


def cost(projection_flops, score_flops, crossover_length) -> None:
    """Your two step counts against the number of tokens at width 768, log-log, with your crossover."""
    title = "Projections grow like n, the score grid like n²: the cost of one layer at width 768 (chapter section 7)"
    names = ("projection_flops", "score_flops", "crossover_length")
    funcs = (projection_flops, score_flops, crossover_length)
    attempts = [_attempt(n, f, _case(n)) for n, f in zip(names, funcs)]
    if _not_started(title, attempts):
        return
    lengths = [2**k for k in range(4, 17)]
    curves, problems = {}, []
    for name, func in zip(names[:2], funcs[:2]):
        values = []
        for n in lengths:
            value, problem = _value(func, n, 768)
            if problem:
                problems.append(f"your {name}({n}, 768): {problem}")
                break
            values.append(value)
        curves[name] = _numbers(values) if not problem else None
    square = np.zeros((768, 768))  # only the shapes matter
    crossover, problem = _value(crossover_length, square, square, square, square)
    if problem:
        problems.append(f"your crossover_length on four (768, 768) matrices: {problem}")
    crossover = _numbers([crossover])[0]
    chapter = {"projection_flops": {512: float(_case("projection_flops")["expected"])},
               "score_flops": {**CHAPTER_GRID_STEPS, 512: float(_case("score_flops")["expected"])}}
    differs = any(a.state != "right" for a in attempts) or bool(problems)
    cmap = _mpl().colormaps[CMAP]
    styles = {"projection_flops": ("o-", cmap(YOURS), "projections: Q, K, V and output"),
              "score_flops": ("s--", cmap(0.6), "the grid: scores and mix")}
    with _style():
        fig = _new_figure(6.2 * (2 if differs else 1), 4.3)
        axes = fig.subplots(1, 2 if differs else 1, squeeze=False, sharey=True, sharex=True)[0]
        for ax in axes:
            ax.set(xscale="log", yscale="log", xlabel="tokens n (log scale)")
            ax.grid(True, which="major", alpha=0.3)
        axes[0].set(ylabel="multiply-and-add steps, one layer (log scale)", title="yours")
        for name, values in curves.items():
            if values is None:
                continue
            fmt, colour, label = styles[name]
            positive = np.where(values > 0, values, np.nan)
            axes[0].plot(lengths, positive, fmt, color=colour, lw=2, markersize=4, label=label)
            for n, c in chapter[name].items():  # every n the chapter prints is a power of 2 in `lengths`
                y = positive[lengths.index(n)]
                tolerance = 0.2 if n in CHAPTER_GRID_STEPS else 1e-9  # the chapter rounds those two
                if np.isfinite(y) and y > 0 and not abs(y - c) <= tolerance * c:
                    _curve_gap(axes[0], n, y, c, f"≠ chapter {c:.3g}")
        if np.isfinite(crossover) and crossover > 0:
            axes[0].axvline(crossover, color="black", lw=1.2, linestyle=":")
            axes[0].annotate(f"your crossover: {crossover:,.0f} tokens"
                             + (" = 2d" if crossover == CHAPTER_CROSSOVER else " ≠ 2d"),
                             (crossover, 0.03), xycoords=("data", "axes fraction"), xytext=(4, 0),
                             textcoords="offset points", fontsize=9)
        if any(v is not None for v in curves.values()):
            axes[0].legend(loc="upper left", fontsize=8)
        if differs:
            ax = axes[1]
            _chapter_points(ax, chapter["projection_flops"], "projections (chapter)", marker="o")
            _chapter_points(ax, chapter["score_flops"], "the grid (chapter)", marker="s")
            ax.axvline(CHAPTER_CROSSOVER, color="black", lw=1.2, linestyle=":")
            ax.annotate(f"crossover: {CHAPTER_CROSSOVER:,} tokens = 2d", (CHAPTER_CROSSOVER, 0.03),
                        xycoords=("data", "axes fraction"), xytext=(4, 0), textcoords="offset points", fontsize=9)
            ax.set_title("the chapter's (the values it prints)")
            ax.legend(loc="upper left", fontsize=8)
        _finish(fig, title, differs, [a.message for a in attempts] + problems)
        _show(fig, f"{title}. Your crossover: {crossover:,.0f} tokens; the chapter's: 1,536 tokens, twice the width. "
                   "The chapter's grid steps: 0.03 billion at 128 tokens, 1,649 billion at 32,768.")


UNITS = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))


def _bytes_text(n: float) -> str:
    if not np.isfinite(n):
        return "nan"
    for size, unit in UNITS:
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n:.4g} B"


def memory(score_grid_bytes) -> None:
    """Bars of your score_grid_bytes for 12 heads at 2 bytes a number, on a log scale."""
    title = "Memory for the twelve score grids of one layer, 2 bytes a number (chapter section 7)"
    attempt = _attempt("score_grid_bytes", score_grid_bytes, _case("score_grid_bytes"))
    if _not_started(title, [attempt]):
        return
    lengths = list(CHAPTER_GRID_BYTES)
    values, problem = [], None
    for n in lengths:
        value, problem = _value(score_grid_bytes, n, 12)
        if problem:
            break
        values.append(value)
    yours = _numbers(values) if not problem else None
    expected = np.array(list(CHAPTER_GRID_BYTES.values()))
    differs = attempt.state != "right" or yours is None or bool(wrong_where(yours, expected).any())
    cmap = _mpl().colormaps[CMAP]
    with _style():
        fig = _new_figure(7.5, 4.0)
        ax = fig.add_subplot()
        x = np.arange(len(lengths))
        width = 0.38 if differs else 0.6
        if yours is not None:
            shown = np.where(yours > 0, yours, np.nan)
            bars = ax.bar(x - (width / 2 if differs else 0), np.nan_to_num(shown, nan=0), width, color=cmap(YOURS),
                          label="yours")
            wrong = wrong_where(yours, expected)
            ax.bar_label(bars, [_bytes_text(v) + (" ≠" if w else "") for v, w in zip(yours, wrong)], padding=2,
                         fontsize=9)
        else:
            ax.text(0.5, 0.5, textwrap.fill(f"your score_grid_bytes: {problem}", 70), transform=ax.transAxes,
                    ha="center", fontsize=9)
        if differs:
            bars = ax.bar(x + width / 2, expected, width, facecolor="white", edgecolor="black", hatch="//",
                          label="the chapter's")
            ax.bar_label(bars, [_bytes_text(v) for v in expected], padding=2, fontsize=9)
            ax.legend(loc="upper left")
        ax.set_yscale("log", base=2)
        positive = [v for v in (yours if yours is not None else []) if np.isfinite(v) and v > 0]
        low = min([2**18] + [v / 4 for v in positive])
        high = max([2**38] + [v * 8 for v in positive])
        ticks = [2.0**k for k in range(0, 61, 5) if low <= 2.0**k <= high]
        ax.set_yticks(ticks, [_bytes_text(t) for t in ticks])
        ax.set_ylim(low, high)
        ax.set_xticks(x, [f"{n:,}" for n in lengths])
        ax.set(xlabel="tokens n", ylabel="bytes (log scale)")
        _finish(fig, title, differs, [attempt.message, f"your score_grid_bytes: {problem}" if problem else ""])
        _show(fig, f"{title}. Yours: {', '.join(_bytes_text(v) for v in (yours if yours is not None else []))}. "
                   "The chapter's: 6 MiB, 96 MiB, 1.5 GiB and 24 GiB at 512, 2,048, 8,192 and 32,768 tokens.")
