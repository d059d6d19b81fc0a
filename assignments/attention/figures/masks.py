"""Notebook 05's figures: the causal, padding and four-group masks (chapter section 6).

A mask is drawn as three codes, each with its colour and pattern: allowed (0),
forbidden (−∞, hatched //) and anything else (dotted), so a wrong value shows.
"""

from __future__ import annotations

import numpy as np

from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell
from workbook import TOKENS

from .attempts import _as_grid, _attempt, _case
from .drawing import _finish, _grid_text, _mark, _mpl, _new_figure, _panel_note, _show, _signed, _style
from .placeholders import _not_started
from .style import CMAP

GROUPS = ("picture", "words", "joint", "actions")


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
