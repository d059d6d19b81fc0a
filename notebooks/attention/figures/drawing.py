"""What every figure draws with: a new figure, its title and notes, the labelled heat map, the marks of a
difference (≠ on a cell, a connector on a curve), the chapter's points, and the PNG shown with its alt text.

matplotlib is loaded on the first drawing (`_mpl`), never on import: a placeholder needs none of it.
"""

from __future__ import annotations

import base64
import html
import io
import logging
import math
import textwrap
from functools import cache

import numpy as np

from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell

from .attempts import _as_grid
from .style import CMAP, STYLE, readable_on


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


def _mark(ax, i, j) -> None:
    """Outline cell (i, j) as different: a dashed black line over a white one, and ≠."""
    patches = _mpl().patches
    ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="white", lw=3.5))
    ax.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", lw=1.8,
                                   linestyle=(0, (3, 2))))
    ax.text(j + 0.45, i - 0.45, "≠", ha="right", va="top", fontsize=9, weight="bold",
            bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none"})


def _heatmap(ax, grid, *, rows, cols, fmt, vmin, vmax, title, xlabel, ylabel, wrong=None, bar_label=None,
             fontsize=9):
    matplotlib = _mpl()
    cmap = matplotlib.colormaps[CMAP]
    norm = matplotlib.colors.Normalize(vmin, vmax)
    image = ax.imshow(grid, cmap=cmap, norm=norm)
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, fmt(v), ha="center", va="center", fontsize=fontsize, color=_text_colour(cmap, norm, v))
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


def _grid_text(grid, fmt, rows=None) -> str:
    """Every number of `grid` as written on its figure, row by row ("; " between rows), each row after its
    name if `rows` names them (a 1-D grid: one number per name)."""
    if grid is None:
        return "not drawn."
    grid = np.atleast_2d(grid) if rows is None or np.ndim(grid) > 1 else np.asarray(grid)[:, None]
    lines = [" ".join(fmt(v) for v in row) for row in grid]
    if rows is not None:
        lines = [f"{name}: {line}" for name, line in zip(rows, lines)]
    return "; ".join(lines) + "."


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
