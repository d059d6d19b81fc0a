"""Notebook 03's figures: the weights of your softmax (chapter section 4), and your attention beside a
convolution, near and far (chapter section 1)."""

from __future__ import annotations

import textwrap

import numpy as np

from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell
from workbook import TOKENS

from .attempts import _as_grid, _attempt, _case, _value
from .drawing import (_chapter_points, _curve_gap, _finish, _grid_figure, _grid_text, _heatmap, _mpl, _new_figure,
                      _panel_note, _plain, _show, _style)
from .placeholders import _not_started
from .style import CMAP, YOURS

CHAPTER_LEAD = {0.0: 0.500, 1.0: 0.731, 4.0: 0.982}


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
        total = "" if yours is None else f" Yours add up to {_plain(float(np.nansum(yours)))}."
        _show(fig, f"{title}. Yours: {_grid_text(yours, _plain)}{total} The chapter's: 0.683 0.103 0.168 0.046.")


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
                   f"Your attention's weights: {_grid_text(yours, _plain)}"
                   + (f" The chapter's: {_grid_text(expected, _plain)}" if differs else ""))


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
