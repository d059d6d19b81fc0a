"""The release's figures/: a placeholder says what to write, a drawing is cropped as savefig's tight crop."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
from PIL import Image

from kit.notebooks import ROOT


@pytest.fixture(scope="module")
def figures():
    """The released figures package, as a student's kernel imports it (its folder first on the path)."""
    sys.path.insert(0, str(ROOT / "assignments" / "attention"))
    try:
        import figures
        yield figures
    finally:
        sys.path.remove(str(ROOT / "assignments" / "attention"))
        for name in [m for m in sys.modules if m.split(".")[0] in ("figures", "workbook", "judge")]:
            sys.modules.pop(name)


def test_a_figure_of_a_function_not_started_says_what_to_write_in_text_and_in_its_description(figures, monkeypatch):
    from judge import NotStarted

    shown = []
    monkeypatch.setattr("IPython.get_ipython", lambda: object())  # as in a notebook's kernel
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False: shown.append(data))

    def stub(*args, **kwargs):
        raise NotStarted()

    figures.score_grid(stub)
    [data] = shown
    assert set(data) == {"text/html", "text/plain"}
    for text in (data["text/html"], data["text/plain"]):
        assert "Still to write: raw_scores (notebook 02)" in text, text
    assert data["text/plain"].startswith("Placeholder for the figure 'Your raw_scores")


def test_outside_a_notebook_a_figure_prints_its_description_as_a_sentence_not_a_dict(figures, capsys):
    from judge import NotStarted

    def stub(*args, **kwargs):
        raise NotStarted()

    figures.score_grid(stub)
    out = capsys.readouterr().out
    assert out.startswith("Placeholder for the figure 'Your raw_scores") and "text/html" not in out and "{" not in out


def test_a_drawn_figure_is_cropped_to_what_is_drawn_like_savefigs_tight_crop(figures):
    from matplotlib.figure import Figure

    def figure():
        fig = Figure(figsize=(9, 4), layout="constrained")
        ax = fig.add_subplot()
        ax.imshow(np.arange(12).reshape(3, 4))  # a grid narrower than its figure: white on both sides
        ax.set_title("a grid")
        return fig

    ours = Image.open(io.BytesIO(figures.drawing._png(figure())))
    buffer = io.BytesIO()
    figure().savefig(buffer, format="png", dpi=figures.style.STYLE["savefig.dpi"], bbox_inches="tight", pad_inches=0.1)
    theirs = Image.open(buffer)
    assert abs(ours.width - theirs.width) <= 4 and abs(ours.height - theirs.height) <= 4, (ours.size, theirs.size)
    pixels = np.asarray(ours.convert("RGB"))
    margin = round(0.1 * figures.style.STYLE["savefig.dpi"])
    for edge in (pixels[:margin], pixels[-margin:], pixels[:, :margin], pixels[:, -margin:]):
        assert (edge == 255).all()  # the margin is background only


def test_a_function_read_from_a_notebook_with_a_syntax_error_shows_that_error_and_says_to_save(figures, tmp_path,
                                                                                              monkeypatch):
    import json

    import workbook

    source = ROOT / "assignments" / "attention" / "03_softmax_and_mix.ipynb"
    nb = json.loads(source.read_text())
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "attention":
            cell["source"] = "def attention(Q, K, V, mask=None)\n    return Q\n"  # the colon forgotten
    (tmp_path / source.name).write_text(json.dumps(nb))
    monkeypatch.setattr(workbook, "HERE", tmp_path)
    with pytest.raises(NameError) as raised:
        workbook.my("03_softmax_and_mix", "softmax", "attention")
    message = str(raised.value)
    assert "defines no attention" in message and "SyntaxError" in message
    assert "save it and re-run this cell" in message and "saved file" in message


def test_does_every_value_written_on_a_coloured_cell_meet_aa_contrast(figures):
    """A heat map writes each value on its cell in black or white: at least 4.5:1 (WCAG AA) on every colour."""
    import matplotlib

    cmap, norm = matplotlib.colormaps[figures.style.CMAP], matplotlib.colors.Normalize(0, 1)

    def contrast(a, b) -> float:
        high, low = sorted([figures.style.luminance(a), figures.style.luminance(b)], reverse=True)
        return (high + 0.05) / (low + 0.05)

    ratios = {v: contrast(cmap(v), matplotlib.colors.to_rgba(figures.drawing._text_colour(cmap, norm, v)))
              for v in np.linspace(0, 1, 256)}
    worst = min(ratios, key=ratios.get)
    assert ratios[worst] >= 4.5, f"{figures.style.CMAP} at {worst:.3f}: {ratios[worst]:.2f}:1"


def test_a_drawn_figure_is_an_image_whose_alt_text_gives_its_numbers(figures, monkeypatch):
    import html
    import re

    shown = []
    monkeypatch.setattr("IPython.get_ipython", lambda: object())  # as in a notebook's kernel
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False: shown.append(data))
    sys.path.insert(0, str(ROOT))
    try:
        from solutions.attention import softmax
    finally:
        sys.path.remove(str(ROOT))
    figures.cube_weights(softmax)
    [data] = shown
    assert set(data) == {"text/html", "text/plain"}
    [alt] = re.findall(r'<img src="data:image/png;base64,[^"]+" alt="([^"]*)">', data["text/html"])
    assert html.unescape(alt) == data["text/plain"] and "0.683" in data["text/plain"]
