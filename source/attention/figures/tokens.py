"""Notebook 01's figure: the four tokens before and after attention, and how far each moved (chapter section 1)."""

from __future__ import annotations

from judge import differs as wrong_where  # the checks' closeness rule, marked cell by cell
from workbook import TOKENS

from .attempts import _as_grid, _attempt, _case
from .drawing import _finish, _grid_text, _heatmap, _new_figure, _panel_note, _plain, _range, _show, _signed, _style
from .placeholders import _not_started


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
        _show(fig, f"{title}. Before, each token's vector: {_grid_text(X, _signed, TOKENS)} "
                   f"After attention: {_grid_text(O, _signed, TOKENS)} "
                   f"Your movement per token: {_grid_text(yours, _plain, TOKENS)} "
                   + (f"The chapter's: {_grid_text(expected, _plain, TOKENS)}" if differs
                      else "It matches the chapter's."))
