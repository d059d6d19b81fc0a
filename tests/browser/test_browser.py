"""Does JupyterLab show a student what the kit promises? A real browser reads the page.

JupyterLab 4, with nbgrader's extension, runs on 127.0.0.1 on a free port
behind a token, in a temporary folder holding a copy of the student release
and a solved copy of the instructor notebooks. Chromium, driven by Playwright,
opens a notebook, runs it as a student does (Run ▸ Run All Cells) and the test
reads the outputs in the page; then it answers a written question of the
release by typing into its answer cell and saving, as a student does. It saves
the three screenshots README shows, docs/student-release.png,
docs/student-solved.png and docs/student-written.png.

It needs Chromium and Playwright for Python (tests/shared/browser.py says how to
install them); without them it skips and says how, except in CI, where it fails.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from kit.notebooks import ROOT
from tests.browser.jupyterlab import lab_page, open_notebook, run_all, running_lab
from tests.shared.browser import DOCS, chromium, require_browser

RELEASE = ROOT / "assignments" / "attention"
SOURCE = ROOT / "source" / "attention"
FIRST = "01_worked_example.ipynb"     # the release notebook a student opens first
PICTURES = "03_softmax_and_mix.ipynb"  # the solved notebook with the most figures of different kinds
WRITTEN = "05_masks_and_cross_attention.ipynb"  # the release notebook whose written question the student answers


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("lab")
    shutil.copytree(RELEASE, home / "release", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOURCE, home / "solved", ignore=shutil.ignore_patterns("__pycache__"))
    # The solved notebooks' hidden checks import autograder/ and solutions/, as
    # under nbgrader (nbgrader_config.py sets the same path).
    with running_lab(home, tmp_path_factory.mktemp("lab-log") / "lab.log", pythonpath=ROOT) as lab:
        yield lab  # still starting: Chromium starts meanwhile


@pytest.fixture(scope="module")
def browser(lab):
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def page(browser, lab):
    """One JupyterLab page for the whole module: the app loads once."""
    page = lab_page(browser, lab)
    yield page
    page.close()


def _screenshot(page, cell_index: int, name: str, height: int = 900) -> None:
    """Save the page with cell `cell_index` at the top to docs/`name`."""
    page.set_viewport_size({"width": 1280, "height": height})
    page.evaluate("i => window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-Cell')[i]"
                  ".scrollIntoView({block: 'start'})", cell_index)
    page.wait_for_timeout(300)
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / name))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _saved_source(path: Path, index: int) -> str | None:
    """The source of cell `index` as saved in the notebook at `path`; None while the server is still writing
    the file (read between its truncation and its last byte)."""
    try:
        return "".join(_cells(path)[index]["source"])
    except json.JSONDecodeError:
        return None


def _grade_id(cell: dict) -> str:
    return cell["metadata"].get("nbgrader", {}).get("grade_id", "")


def _is_figure(cell: dict) -> bool:
    source = "".join(cell["source"])
    return cell["cell_type"] == "code" and "figures." in source


def _the_release_stops_at_the_first_exercise(page) -> None:
    cells = _cells(RELEASE / FIRST)
    shown = run_all(page, f"release/{FIRST}")
    assert page.get_by_role("button", name="Validate").first.is_visible(), "nbgrader's Validate button is missing"
    first_check = next(i for i, c in enumerate(cells) if _grade_id(c).startswith("check_"))
    exercise = _grade_id(cells[first_check]).removeprefix("check_")
    failed = {i: cell["errors"] for i, cell in enumerate(shown) if cell["errors"]}
    assert list(failed) == [first_check], f"expected only {exercise}'s check to fail, got cells {list(failed)}"
    message = "\n".join(failed[first_check])
    assert "not started" in message and exercise in message, message
    assert f'check("{exercise}"' in message, message  # their cell, not the checker's: no frame of judge/
    assert "judge/" not in message and "judge.py" not in message, message
    ran = [i for i, c in enumerate(cells[:first_check]) if c["cell_type"] == "code"]
    assert all(any(ch.isdigit() for ch in shown[i]["prompt"]) for i in ran), "a cell before the check did not run"
    _screenshot(page, first_check - 2, "student-release.png")


def _a_solved_notebook_passes_and_draws_every_figure(page) -> None:
    cells = _cells(SOURCE / PICTURES)
    shown = run_all(page, f"solved/{PICTURES}")
    failed = {i: cell["errors"] for i, cell in enumerate(shown) if cell["errors"]}
    assert failed == {}, f"cells with an error or stderr output: {failed}"
    code = [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    assert all(any(ch.isdigit() for ch in shown[i]["prompt"]) for i in code), "a cell did not run"
    checks = [i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade")]
    assert checks and all("✓" in shown[i]["text"] for i in checks), [shown[i]["text"][:200] for i in checks]
    figures = [i for i, c in enumerate(cells) if _is_figure(c)]
    assert figures, f"{PICTURES} has no figure cell"
    for i in figures:
        assert shown[i]["images"] and all(width > 0 for width in shown[i]["images"]), \
            f"figure cell {i} shows no image: {shown[i]['text'][:300]}"
    # The checks of the first exercise drawn by a figure, and that figure.
    visible_checks = [i for i in checks if _grade_id(cells[i]).startswith("check_") and i < figures[0]]
    _screenshot(page, visible_checks[-1], "student-solved.png", height=1600)


def _cell_node(page, index: int):
    """Cell `index` of the notebook in front (the ones opened before stay in the page, hidden)."""
    widget = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return page.locator(f"[id='{widget}'] .jp-Cell").nth(index)


def _is_editing(page, index: int) -> bool:
    """Whether cell `index` shows its editor (JupyterLab marks a rendered markdown cell jp-mod-rendered)."""
    return page.evaluate("i => !window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-Cell')[i]"
                         ".classList.contains('jp-mod-rendered')", index)


def _source(page, index: int) -> str:
    """What the notebook in front holds in cell `index` now."""
    return page.evaluate("i => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel"
                         ".getSource()", index)


def _a_written_answer_is_typed_into_its_cell_and_saved(page, home: Path) -> None:
    cells = _cells(RELEASE / WRITTEN)
    question = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("task"))
    task_id = _grade_id(cells[question])
    answer = next(i for i, c in enumerate(cells) if c.get("id") == f"{task_id}-answer")
    open_notebook(page, f"release/{WRITTEN}")
    shown_question = _cell_node(page, question).inner_text()
    assert "Written question" in shown_question and "MARK SCHEME" not in shown_question, shown_question[:500]
    before = _source(page, question)
    _cell_node(page, question).dblclick()
    page.keyboard.type("edited")
    assert _source(page, question) == before, "the student could edit the written question itself"
    page.keyboard.press("Shift+Enter")
    _cell_node(page, answer).dblclick()
    assert _is_editing(page, answer), "double-clicking the answer cell did not open its editor"
    _cell_node(page, answer).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    typed = "The mask hides every later token, so one pass scores every position at once."
    page.keyboard.type(typed)
    assert _source(page, answer) == typed, f"typing went elsewhere: the answer cell holds {_source(page, answer)!r}"
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Control+s")
    saved = home / "release" / WRITTEN
    deadline = time.monotonic() + 30
    while _saved_source(saved, answer) != typed and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _saved_source(saved, answer) == typed, "the typed answer was not saved in its cell"
    assert typed in _cell_node(page, answer).inner_text()  # rendered as the student's own text
    _screenshot(page, question, "student-written.png")


def test_does_a_student_see_the_release_stop_at_its_first_stub_and_a_solved_notebook_pass_with_its_figures(page, lab):
    # One test, so that pytest-xdist never starts a second JupyterLab and Chromium for the second half.
    _the_release_stops_at_the_first_exercise(page)
    _a_solved_notebook_passes_and_draws_every_figure(page)
    _a_written_answer_is_typed_into_its_cell_and_saved(page, lab.home)
