"""The report's three charts, in the style of the notebooks' figures.

viridis colours (dark to light in greyscale, the same for colour-blind eyes),
every value written on its bar or cell, and a second pattern (hatching) where
two series share a chart, so each chart reads in greyscale. Every chart comes
with alt text that states what it shows, numbers included.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kit.course import ASSIGNMENT, ROOT
from kit.report.collect import ClassResults
from kit.release import FIGURES

FIGURE_STYLE = ROOT / "notebooks" / ASSIGNMENT / FIGURES / "style.py"


def _load_style(path: Path):
    """The figures' style module (colour map, rc settings, the text colour on a coloured cell), from its file.

    The style is written once, in the figures' folder the students get (notebooks/<assignment>/figures/
    style.py, copied by kit/release.py). There it is ``figures.style``; the kit cannot import it by that
    name: notebooks/<assignment>/ is not on the kit's path (putting it there would make the students'
    ``judge``, ``workbook`` and ``figures`` top-level names of the kit), and importing the package would
    run its ``__init__``, which needs the students' ``judge``. So the report loads the one file by its
    path under the course root, the path the release copies it from; the file imports nothing, so it
    loads alone. (A kit-owned style copied into the release would leave the figures' folder in
    notebooks/ without a module it imports.)
    """
    spec = importlib.util.spec_from_file_location("figure_style", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


style = _load_style(FIGURE_STYLE)


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    alt: str
    png: bytes

    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def _figure(width: float, height: float):
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    from matplotlib.figure import Figure  # no pyplot: no global state, no display needed
    return Figure(figsize=(width, height), layout="constrained")


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", pad_inches=0.1)
    return buffer.getvalue()


def _colour(value: float):
    import matplotlib
    return matplotlib.colormaps[style.CMAP](value)


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def pass_rates(results: ClassResults) -> Chart:
    """Per exercise, the share of the class passing the visible check and the hidden graders."""
    import matplotlib
    exercises = results.exercises
    visible = [e.share(e.visible_passed) if e.has_check else np.nan for e in exercises]
    hidden = [e.share(e.hidden_passed) for e in exercises]
    y = np.arange(len(exercises))
    with matplotlib.rc_context(style.STYLE):
        fig = _figure(7.5, 0.34 * len(exercises) + 1.2)
        ax = fig.add_subplot()
        series = (("visible check", visible, 0.25, None, -0.2), ("hidden graders", hidden, 0.75, "///", 0.2))
        for label, values, tone, hatch, offset in series:
            bars = ax.barh(y + offset, np.nan_to_num(values), height=0.4, color=_colour(tone), hatch=hatch,
                           edgecolor="black", linewidth=0.6, label=label)
            ax.bar_label(bars, labels=["none" if np.isnan(v) else _percent(v) for v in values], padding=3,
                         fontsize=8)
        ax.set_yticks(y, [e.name for e in exercises])
        ax.set_ylim(len(exercises) - 0.5, -0.5)  # first exercise on top, no margin
        ax.set_xlim(0, 1.12)
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set(xlabel=f"share of the {len(results.students)} students who submitted",
               title="Who passed each exercise")
        ax.legend(loc="lower right", fontsize=8, framealpha=1)
        png = _png(fig)
    parts = [f"{e.name}: visible check {'none' if np.isnan(v) else _percent(v)}, hidden graders {_percent(h)}"
             for e, v, h in zip(exercises, visible, hidden)]
    alt = "Bar chart of the share of the class passing each exercise. " + "; ".join(parts) + "."
    return Chart("pass-rates", "Pass rates per exercise", alt, png)


def mistakes_heatmap(results: ClassResults) -> Chart:
    """Students per (known mistake, exercise): rows are the mistakes made, columns the exercises where
    any was made; 0 where a mistake of that exercise was not made, blank where it is not one of its own."""
    import matplotlib
    made = [e for e in results.exercises if e.mistakes]
    names = sorted({m for e in made for m in e.mistakes},
                   key=lambda m: (-sum(len(e.mistakes.get(m, ())) for e in made), m))
    title = "Known mistakes: how many students made each, in each exercise"
    with matplotlib.rc_context(style.STYLE):
        if not made:
            fig = _figure(7.5, 1.0)
            ax = fig.add_subplot()
            ax.set_axis_off()
            ax.text(0.5, 0.5, "No answer matched a known mistake.", ha="center", va="center", transform=ax.transAxes)
            ax.set_title(title)
            return Chart("mistakes", title, "Heat map of known mistakes: no answer matched a known mistake.", _png(fig))
        grid = np.array([[len(e.mistakes.get(m, ())) if m in e.mistakes or m in e.known_mistakes else np.nan
                          for e in made] for m in names])
        fig = _figure(max(5.0, 0.6 * len(made) + 3.5), 0.3 * len(names) + 1.8)
        ax = fig.add_subplot()
        cmap = matplotlib.colormaps[style.CMAP].with_extremes(bad="white")
        norm = matplotlib.colors.Normalize(0, max(1, np.nanmax(grid)))
        image = _rows_image(ax, grid, cmap, norm)
        for (i, j), v in np.ndenumerate(grid):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=9, color=style.readable_on(cmap(norm(v))))
        ax.set_xticks(range(len(made)), [e.name for e in made], rotation=40, ha="right")
        ax.set_yticks(range(len(names)), names)
        ax.tick_params(length=0)
        ax.spines[:].set_visible(False)
        ax.set_title(title)
        bar = fig.colorbar(image, ax=ax, shrink=0.8, label="students")
        bar.locator = matplotlib.ticker.MaxNLocator(integer=True)
        bar.update_ticks()
        png = _png(fig)
    parts = [f"{m} in {e.name}: {len(e.mistakes[m])}" for m in names for e in made if m in e.mistakes]
    alt = (f"Heat map of known mistakes (rows) by exercise (columns), each cell the number of students who made "
           f"that mistake in that exercise; blank where the mistake is not one of that exercise's. {'; '.join(parts)}.")
    return Chart("mistakes", title, alt, png)


def _rows_image(ax, grid: np.ndarray, cmap, norm):
    """`ax.imshow(grid, aspect="auto")`, the same pixels, drawn one row at a time: matplotlib resamples an image
    to the figure's pixels in float64 arrays of the drawn size, about 4 MiB a row here, so the whole grid cost
    the report some 450 MiB once the class had made a hundred mistakes. Returns the last row's image (one
    colour map and norm for all: the colour bar's)."""
    rows, columns = grid.shape
    for row in range(rows):
        image = ax.imshow(np.ma.masked_invalid(grid[row:row + 1]), cmap=cmap, norm=norm, aspect="auto",
                          extent=(-0.5, columns - 0.5, row + 0.5, row - 0.5))
    ax.set_xlim(-0.5, columns - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)  # as imshow sets them for the whole grid
    return image


def score_histogram(results: ClassResults, bins: int = 10) -> Chart:
    """How many students scored in each tenth of the maximum, after late penalties."""
    import matplotlib
    shares = [s.score / s.max_score if s.max_score else 0.0 for s in results.students]
    counts, edges = np.histogram(np.clip(shares, 0, 1), bins=bins, range=(0, 1))
    labels = [f"{100 * lo:.0f}–{100 * hi:.0f}%" for lo, hi in zip(edges[:-1], edges[1:])]
    with matplotlib.rc_context(style.STYLE):
        fig = _figure(7.5, 3.2)
        ax = fig.add_subplot()
        bars = ax.bar(range(bins), counts, width=0.85, color=[_colour(0.15 + 0.7 * i / (bins - 1)) for i in range(bins)],
                      edgecolor="black", linewidth=0.6)
        ax.bar_label(bars, labels=[str(c) for c in counts], padding=2, fontsize=8.5)
        ax.set_xticks(range(bins), labels, rotation=30, ha="right")
        ax.set_ylim(0, max(1, counts.max()) * 1.15)
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set(xlabel="score after the late penalty, as a share of the maximum", ylabel="students",
               title=f"Score distribution ({len(shares)} students)")
        png = _png(fig)
    alt = ("Histogram of scores after the late penalty, in tenths of the maximum: "
           + "; ".join(f"{label}: {c}" for label, c in zip(labels, counts)) + ".")
    return Chart("scores", "Score distribution", alt, png)


def all_charts(results: ClassResults) -> list[Chart]:
    return [mistakes_heatmap(results), pass_rates(results), score_histogram(results)]
