"""Notebook 04's figure: the weight grids of the worked example's two heads (chapter section 5)."""

from __future__ import annotations

import numpy as np

from workbook import TOKENS

from .attempts import _as_grid, _attempt, _case, _value
from .drawing import _finish, _grid_text, _heatmap, _mpl, _new_figure, _panel_note, _plain, _show, _style
from .placeholders import _not_started
from .style import CMAP, YOURS

CHAPTER_HEADS = (0.691, 0.360)  # each head's average largest weight


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
        weights = "" if grid is None else " ".join(
            f"Your head {m + 1}'s weights, row by row (the token that asks, then its weight on each key in turn): "
            f"{_grid_text(grid[m], _plain, TOKENS)}" for m in range(2))
        _show(fig, f"{title}.{(' ' + weights) if weights else ''} Your average largest weights: "
                   f"{', '.join(_plain(a) for a in averages)}; the chapter's: 0.691 and 0.360.")
