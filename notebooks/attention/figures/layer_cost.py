"""Notebook 07's figures: the steps and the memory of one attention layer (chapter section 7)."""

from __future__ import annotations

import textwrap

import numpy as np

from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell

from .attempts import _attempt, _case, _numbers, _value
from .drawing import _chapter_points, _curve_gap, _finish, _mpl, _new_figure, _show, _style
from .placeholders import _not_started
from .style import CMAP, YOURS

CHAPTER_GRID_STEPS = {128: 0.03e9, 32768: 1649e9}  # printed in billions, rounded
CHAPTER_CROSSOVER = 1536  # tokens, twice the width 768
CHAPTER_GRID_BYTES = {512: 6 * 2**20, 2048: 96 * 2**20, 8192: 1.5 * 2**30, 32768: 24 * 2**30}


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
                    _curve_gap(axes[0], n, y, c, f"≠ chapter {_steps(c)}")
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
        steps = {"projection_flops": "projections", "score_flops": "the grid"}
        yours = "; ".join(f"{steps[name]}: " + (", ".join(f"{_steps(v)} at {n:,}" for n, v in zip(lengths, values))
                                                 if values is not None else "not drawn")
                          for name, values in curves.items())
        theirs = "; ".join(f"{steps[name]}: " + ", ".join(f"{_steps(c)} at {n:,}" for n, c in sorted(points.items()))
                           for name, points in chapter.items())
        _show(fig, f"{title}. Your steps, by tokens: {yours}. The chapter's: {theirs}. Your crossover: "
                   f"{crossover:,.0f} tokens; the chapter's: 1,536 tokens, twice the width.")


def _steps(n: float) -> str:
    """A count of steps as words say it: 1,649 billion, 1.21 billion, 33.6 million, 98,304."""
    if not np.isfinite(n):
        return "nan"
    for size, unit in ((1e9, "billion"), (1e6, "million")):
        if abs(n) >= size:
            return f"{n / size:,.0f} {unit}" if abs(n) >= 100 * size else f"{n / size:.3g} {unit}"
    return f"{n:,.0f}"


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
