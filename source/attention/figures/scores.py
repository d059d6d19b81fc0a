"""Notebook 02's figures: the score grids, and the two simulations of scaling by √d_k (chapter section 3)."""

from __future__ import annotations

import math

import numpy as np

from workbook import TOKENS

from .attempts import _attempt, _case, _kind, _numbers, _value
from .drawing import (_chapter_points, _curve_gap, _finish, _grid_figure, _mpl, _new_figure, _panel_note, _show,
                      _signed, _style)
from .placeholders import _not_started
from .style import CMAP, YOURS

# Numbers the chapter prints (its simulations used their own seeds, so yours
# may differ from these by noise; the marks allow for that).
CHAPTER_SPREAD = {"raw": {4: 2.04, 1024: 31.85}, "scaled": {4: 1.02, 16: 1.00, 64: 1.00, 256: 1.00, 1024: 1.00}}
CHAPTER_LARGEST = {"raw": {4: 0.293, 1024: 0.941}, "scaled": {4: 0.11, 16: 0.11, 64: 0.11, 256: 0.11, 1024: 0.11}}
HEAD_SIZES = (4, 16, 64, 256, 1024)


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
