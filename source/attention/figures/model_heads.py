"""Notebook 09's figure: every head's weight grid of the small trained model on a prompt (chapter section 5).

Not a judged figure: the grids are what the model computes with your attention, as they come.
"""

from __future__ import annotations

import numpy as np

from .drawing import _heatmap, _new_figure, _show, _style

CELL = 0.3  # inches a side: room for a weight written in hundredths
COLUMNS = 2  # heads side by side: wider, the notebook would shrink the figure and its numbers


def every_head(weights, words, title: str) -> None:
    """Each head's weights as a heat map with every weight written on it; its text alternative every weight.

    weights: (layers, heads, n, n), row i where token i looks, column j the token it looks at (0 where the causal
    mask forbids the pair, written as nothing); words: the n tokens.
    """
    weights = np.asarray(weights, dtype=float)
    layers, heads, n = weights.shape[:3]
    rows = -(-layers * heads // COLUMNS)
    side = CELL * n + 1.2
    with _style():
        fig = _new_figure(COLUMNS * side + 0.8, rows * (side + 0.4) + 0.6)
        axes = fig.subplots(rows, COLUMNS, squeeze=False).ravel()
        for k, ax in enumerate(axes):
            if k >= layers * heads:
                ax.set_axis_off()
                continue
            layer, head = divmod(k, heads)
            image = _heatmap(ax, weights[layer, head], rows=words, cols=words, fmt=_hundredths, vmin=0.0, vmax=1.0,
                             title=f"layer {layer}, head {head}", xlabel="looked at (key)",
                             ylabel="looking (query)", fontsize=6.5)
            ax.tick_params(axis="both", labelsize=7)
            ax.tick_params(axis="x", labelrotation=90)
        fig.colorbar(image, ax=list(axes), shrink=0.4, label="attention weight")
        fig.suptitle(title)
        _show(fig, f"{title}. Every head's weights, row by row: each token, then the weights it gives the tokens up "
                   f"to itself in turn ({' '.join(words)}), in hundredths. "
                   + " ".join(f"Layer {layer}, head {head}: {_rows_text(weights[layer, head], words)}"
                              for layer in range(layers) for head in range(heads)))


def _hundredths(v: float) -> str:
    """A weight as written on its cell: ".81", "1.00"; nothing for a pair the mask forbids (exactly 0)."""
    return "" if v == 0 else f"{v:.2f}".removeprefix("0")


def _rows_text(grid, words) -> str:
    """Each row of `grid` after its token, up to its last weight written on the figure (the diagonal, under a
    causal mask): the forbidden pairs after it are 0 and written as nothing."""
    text = []
    for word, row in zip(words, grid):
        shown = np.flatnonzero(row != 0)
        end = shown[-1] + 1 if shown.size else 0
        text.append(f"{word}: " + (" ".join(_hundredths(v) or "0" for v in row[:end]) or "nothing"))
    return "; ".join(text) + "."
