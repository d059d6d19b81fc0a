"""The Model Explorer page: its JSON endpoint, the page in a real browser, and
the copy students start from the folder they fetched (on their own attention)."""

from __future__ import annotations

import ast
import json
import os
import re
import select
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from explorer.reference import reference_source
from explorer.server import start
from model.transformer import HEADS, LAYERS
from tests.shared.browser import chromium, require_browser

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "the dog sees a red ball . the dog sees a red ball"
RELEASE = ROOT / "assignments" / "attention"
SOLVED = ROOT / "source" / "attention"


@pytest.fixture
def explorer():
    server, url = start(reference_source(), port=0)
    yield url
    server.shutdown()
    server.server_close()


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_does_the_server_answer_on_loopback_with_every_layer_and_head(explorer):
    assert explorer.startswith("http://127.0.0.1:") and not explorer.endswith(":0/")
    status, answer = _get(explorer + "api/run?prompt=the+cat+sat+on+the+mat&weights=trained")
    assert status == 200
    n = len(answer["words"])
    assert answer["words"] == ["<s>", "the", "cat", "sat", "on", "the", "mat"]
    assert len(answer["layers"]) == LAYERS and all(len(layer) == HEADS for layer in answer["layers"])
    for layer in answer["layers"]:
        for head in layer:
            assert len(head["scores"]) == len(head["weights"]) == n
            assert all(abs(sum(row) - 1) < 1e-3 for row in head["weights"])
    # −∞ travels as null: JSON has no infinity.
    assert answer["mask"][0] == [0.0] + [None] * (n - 1)


def test_does_the_switch_give_other_weights(explorer):
    _, trained = _get(explorer + "api/run?prompt=the+cat+sat&weights=trained")
    _, random = _get(explorer + "api/run?prompt=the+cat+sat&weights=random")
    assert random["weights"] == "random"
    assert random["layers"][0][0]["weights"] != trained["layers"][0][0]["weights"]


def test_is_an_unknown_word_refused_with_a_message_that_names_it(explorer):
    status, answer = _get(explorer + "api/run?prompt=the+zebra+sat")
    assert status == 400 and "'zebra'" in answer["error"]


def test_does_the_server_stop(explorer):
    server, url = start(reference_source(), port=0)
    server.shutdown()
    server.server_close()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


# ---------------------------------------------------------------- the page in Chromium


def test_does_the_page_draw_every_grid_and_switch_to_random_weights(explorer):
    require_browser()
    docs = ROOT / "docs"
    docs.mkdir(exist_ok=True)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(explorer)
        page.wait_for_selector("body[data-state=ready]")
        page.fill("#prompt", PROMPT)
        page.press("#prompt", "Enter")
        page.wait_for_selector(f'body[data-state=ready][data-prompt="{PROMPT}"]')
        n = len(PROMPT.split()) + 1
        # Every head's weights in the overview, and one head's scores, mask and weights in detail.
        assert page.locator("#overview svg.grid[data-what=weights]").count() == LAYERS * HEADS
        assert page.locator("#detail svg.grid").count() == 3
        assert page.locator("#overview svg.grid").first.locator("rect[fill^='rgb']").count() > n
        assert page.locator("#overview .kind").all_inner_texts().count("induction") >= 1
        page.screenshot(path=str(docs / "explorer-trained.png"), full_page=True)

        page.check("input[name=weights][value=random]")
        page.wait_for_selector("body[data-state=ready][data-weights=random]")
        assert page.locator("#overview svg.grid[data-what=weights]").count() == LAYERS * HEADS
        assert set(page.locator("#overview .kind").all_inner_texts()) == {"spread"}
        page.screenshot(path=str(docs / "explorer-random.png"), full_page=True)

        page.fill("#prompt", "the zebra")
        page.press("#prompt", "Enter")
        page.wait_for_selector("body[data-state=error]")
        assert "zebra" in page.inner_text("#error")
        assert errors == []


# ---------------------------------------------------------------- the students' copy, in their fetched folder


def _page(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return reply.status, reply.read().decode()


@pytest.fixture
def students_explorer(tmp_path, request):
    """`python explorer.py --port 0` started in a copy of a folder (the release, or solved notebooks); its URL."""
    folder = tmp_path / "attention"
    shutil.copytree(request.param, folder, ignore=shutil.ignore_patterns("__pycache__"))
    yield from _serving(folder, tmp_path)


def _serving(folder: Path, home: Path):
    """`python explorer.py --port 0` started in `folder`: its URL, until the generator is closed."""
    process = subprocess.Popen([sys.executable, "explorer.py", "--port", "0"], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={"PATH": os.environ.get("PATH", ""), "HOME": str(home), "MPLBACKEND": "Agg"})
    try:
        ready, _, _ = select.select([process.stdout], [], [], 120)
        line = process.stdout.readline() if ready else ""
        address = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert address, f"no address printed: {line!r}"
        yield address.group()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_release_ships_the_explorer_and_it_imports_nothing_of_the_kit():
    shipped = {p.name for p in RELEASE.iterdir()}
    assert {"explorer.py", "explorer_server.py", "explorer.html", "explorer.js"} <= shipped
    own = {p.stem for p in RELEASE.glob("*.py")} | {p.parent.name for p in RELEASE.glob("*/__init__.py")}
    for name in ("explorer.py", "explorer_server.py", "explorer_model.py", "workbook.py"):
        tree = ast.parse((RELEASE / name).read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        foreign = imported - own - {"numpy"} - set(sys.stdlib_module_names)
        assert not foreign, f"{name} imports {sorted(foreign)}, which a student's folder does not have"


@pytest.mark.parametrize("students_explorer", [SOLVED], indirect=True, ids=["solved"])
def test_the_fetched_folders_explorer_serves_the_page_on_the_students_own_attention(students_explorer):
    status, html = _page(students_explorer)
    assert status == 200 and "Model Explorer" in html
    assert _page(students_explorer + "explorer.js")[0] == 200
    status, answer = _get(students_explorer + "api/run?prompt=the+cat+sat+on+the+mat+.+the+cat+sat+on+the+mat")
    assert status == 200
    assert len(answer["layers"]) == LAYERS and all(len(layer) == HEADS for layer in answer["layers"])
    assert "induction" in sum(answer["kinds"], [])  # classified by the folder's own classify_head
    reference = reference_source()
    model = reference.models["trained"]
    expected = reference.run(model, reference.tokenize(answer["prompt"], model.vocab)).weights
    served = np.array([[head["weights"] for head in layer] for layer in answer["layers"]])
    assert np.abs(served - expected).max() < 1e-3


@pytest.mark.parametrize("students_explorer", [RELEASE], indirect=True, ids=["untouched"])
def test_the_untouched_releases_explorer_serves_the_page_and_says_what_to_write(students_explorer):
    assert _page(students_explorer)[0] == 200
    status, answer = _get(students_explorer + "api/run?prompt=the+cat+sat")
    assert status == 400 and "not implemented yet" in answer["error"]


def test_a_kind_the_students_classify_head_returns_shows_as_text_in_their_explorer(tmp_path):
    """Their own copy only, but a kind is what their code returned: text, never markup in the page."""
    require_browser()
    folder = tmp_path / "attention"
    shutil.copytree(SOLVED, folder, ignore=shutil.ignore_patterns("__pycache__"))
    notebook = folder / "09_model_explorer.ipynb"
    nb = json.loads(notebook.read_text())
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "classify_head":
            cell["source"] = "def classify_head(*args, **kwargs):\n    return '<img src=x onerror=\"window.__pwned = 1\">'\n"
    notebook.write_text(json.dumps(nb))
    serving = _serving(folder, tmp_path)
    url = next(serving)
    try:
        with chromium() as browser:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("body[data-state=ready]")
            assert page.locator("#overview .kind").first.inner_text() == '<img src=x onerror="window.__pwned = 1">'
            assert page.evaluate("() => [window.__pwned ?? null, document.querySelectorAll('#overview img').length]") \
                == [None, 0]
    finally:
        serving.close()
