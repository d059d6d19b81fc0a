"""The figures' style: the colour map, matplotlib's settings and the colour of text on a coloured cell.

Colours come from viridis, which runs from dark to light in greyscale and
reads the same for colour-blind eyes; every value that matters is also
written as a label, a pattern or a marker shape.

The class report's charts (kit/report/charts.py) are drawn in this style and
load this very file by its path, so it imports nothing: not matplotlib (a
figure loads that when it draws), not the rest of this folder.
"""

from __future__ import annotations

CMAP = "viridis"
STYLE = {"font.size": 10, "axes.titlesize": 10, "figure.titlesize": 11, "axes.spines.top": False,
         "axes.spines.right": False, "hatch.linewidth": 0.8, "figure.dpi": 100, "savefig.dpi": 110}
YOURS = 0.25  # your bars and curves: a dark viridis blue; the chapter's are hatched white or hollow black


def luminance(rgba) -> float:
    """WCAG 2.1's relative luminance of an (r, g, b, ...) colour in 0..1."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def readable_on(rgba) -> str:
    """The text colour, black or white, of the higher WCAG contrast ratio on `rgba`."""
    shade = luminance(rgba)
    return "black" if (shade + 0.05) / 0.05 >= 1.05 / (shade + 0.05) else "white"
