"""The release's figures/: a placeholder says what to write, a drawing is cropped as savefig's tight crop."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
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


# ---------------------------------------------------------------- every number drawn, in words

NUMBER = re.compile(r"[−+-]?\d[\d,]*(?:\.\d+)?|\.\d+")  # as a figure writes them: 0.683, −1.25, 74,309, .81


def _figure_calls() -> list[tuple[str, str, list[str], dict]]:
    """(notebook, figure, the names of the student's functions it is given, its keywords) of every figures.<name>(...)
    call of the notebooks whose arguments are functions of the student's (notebook 09's draws a model's run)."""
    calls = []
    for script in sorted((ROOT / "notebooks" / "attention").glob("0*.py")):
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and getattr(node.func.value, "id", None) == "figures":
                names = [arg.id for arg in node.args if isinstance(arg, ast.Name)]
                if len(names) == len(node.args):
                    calls.append((script.stem, node.func.attr, names,
                                  {k.arg: ast.literal_eval(k.value) for k in node.keywords}))
    return calls


def _half_wrong(names: list[str], functions: list) -> tuple[str, list] | None:
    """The functions with the first of them that the corpus has a known mistake of replaced by it."""
    for i, name in enumerate(names):
        for path in sorted((ROOT / "tests" / "shared" / "corpus" / "mistakes").glob(f"{name}__*.py")):
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return path.stem, [*functions[:i], getattr(module, name), *functions[i + 1:]]
    return None


@pytest.fixture
def drawn(figures, monkeypatch) -> list[dict]:
    """What each figure drawn in the test shows: its text alternative, and the texts written on it (the labels
    on cells, bars and points, not the axes' scales)."""
    found, png = [], figures.drawing._png

    def spied(fig, margin=0.1):
        found.append({"written": [t.get_text() for ax in fig.axes for t in ax.texts]})
        return png(fig, margin)

    def shown(data, raw=False):
        found[-1]["alt"] = data["text/plain"]

    monkeypatch.setattr(figures.drawing, "_png", spied)
    monkeypatch.setattr("IPython.get_ipython", lambda: object())  # as in a notebook's kernel
    monkeypatch.setattr("IPython.display.display", shown)
    return found


def _unsaid(seen: dict) -> list[str]:
    """The numbers written on a figure that its text alternative does not give."""
    return sorted({n for text in seen["written"] for n in NUMBER.findall(text) if n not in seen["alt"]})


def test_does_every_figure_give_every_number_written_on_it_in_its_text_alternative_solved_and_half_wrong(figures,
                                                                                                      drawn):
    sys.path.insert(0, str(ROOT))
    try:
        import solutions.attention as reference
    finally:
        sys.path.remove(str(ROOT))
    calls = _figure_calls()
    assert {figure for _, figure, _, _ in calls} == set(figures.__all__) - {"every_head"}, "a figure not drawn here"
    unsaid, wrong = {}, 0
    for notebook, figure, names, keywords in calls:
        solved = [getattr(reference, name) for name in names]
        for state, functions in [("solved", solved), *filter(None, [_half_wrong(names, solved)])]:
            drawn.clear()
            getattr(figures, figure)(*functions, **keywords)
            [seen] = drawn
            assert NUMBER.search(seen["alt"]), (figure, state, seen["alt"])
            if _unsaid(seen):
                unsaid[f"{notebook} {figure}, {state}"] = _unsaid(seen)
            wrong += state != "solved"
    assert unsaid == {}
    assert wrong >= len(calls) - 2, "most figures drawn half wrong too"


def test_does_notebook_04s_figure_say_the_32_weights_it_draws(figures, drawn):
    sys.path.insert(0, str(ROOT))
    try:
        from solutions.attention import attention, split_heads
    finally:
        sys.path.remove(str(ROOT))
    figures.two_heads(split_heads, attention)
    [seen] = drawn
    weights = [n for text in seen["written"] for n in NUMBER.findall(text) if "." in n and len(text) <= 6]
    said = " ".join(re.findall(r"Your head \d's weights, row by row[^:]*: (.*?)\.(?= Your)", seen["alt"]))
    assert len(weights) == 32 and NUMBER.findall(re.sub(r"\b[a-z]+:", "", said)) == weights, (weights, said)


@pytest.mark.parametrize("attention", ["yours", "a known mistake's"])
def test_does_notebook_09s_figure_write_every_weight_of_every_head_on_it_and_in_words(figures, drawn, attention):
    sys.path.insert(0, str(ROOT))
    try:
        import solutions.attention as reference
    finally:
        sys.path.remove(str(ROOT))
    import explorer_model

    pieces = explorer_model.Pieces(*(getattr(reference, name) for name in explorer_model.Pieces._fields))
    if attention != "yours":
        _, [wrong] = _half_wrong(["softmax"], [reference.softmax])
        pieces = pieces._replace(softmax=wrong)
    model = explorer_model.load(ROOT / "assignments" / "attention" / "model_weights.npz")
    run = explorer_model.forward(model, explorer_model.tokenize("the cat sat on the mat . the cat", model.vocab), pieces)
    words = [model.vocab[t] for t in run.tokens]
    figures.every_head(run.weights, words, "a prompt")
    [seen] = drawn
    assert _unsaid(seen) == []
    if attention == "yours":  # every pair the causal mask allows has its weight written; the first row is 1
        layers, heads, n = run.weights.shape[:3]
        assert len([t for t in seen["written"] if t]) == layers * heads * n * (n + 1) // 2
        assert all(f"Layer {layer}, head {head}: <s>: 1.00; the: " in seen["alt"]
                   for layer in range(layers) for head in range(heads))
