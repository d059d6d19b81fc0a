"""Does JupyterLab show a student what the kit promises? A real browser reads the page.

JupyterLab 4, with nbgrader's extension, runs on 127.0.0.1 on a free port
behind a token, in a temporary folder holding a copy of the student release
and a solved copy of the instructor notebooks. Chromium, driven by Playwright,
opens a notebook, runs it as a student does (Run ▸ Run All Cells) and the test
reads the outputs in the page; then it answers a written question of the
release by typing into its answer cell and saving, as a student does. It saves
the three screenshots README shows, docs/student-release.png,
docs/student-solved.png and docs/student-written.png.

It needs Debian's Chromium (`apt-get install -y chromium`; another build of
Chromium works through the CHROMIUM environment variable, its path) and
Playwright for Python (`.venv/bin/pip install playwright`; Playwright's own
browser download is not used). Without them it skips and says how to enable
it, except in CI (the CI environment variable set), where it fails instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

import pytest

from kit.notebooks import ROOT

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))  # Debian's; elsewhere set CHROMIUM
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
RELEASE = ROOT / "assignments" / "attention"
SOURCE = ROOT / "source" / "attention"
DOCS = ROOT / "docs"
FIRST = "01_worked_example.ipynb"     # the release notebook a student opens first
PICTURES = "03_softmax_and_mix.ipynb"  # the solved notebook with the most figures of different kinds
WRITTEN = "05_masks_and_cross_attention.ipynb"  # the release notebook whose written question the student answers
STDERR = '[data-mime-type="application/vnd.jupyter.stderr"]'  # how JupyterLab marks errors and stderr

# JupyterLab settings for a quiet, predictable page: every cell in the page
# (no windowing), no news or update pop-ups over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                       "checkForUpdates": False},
}


def _require_browser() -> None:
    missing = []
    if not CHROMIUM.exists():
        missing.append("Debian's Chromium (apt-get install -y chromium)")
    if importlib.util.find_spec("playwright") is None:
        missing.append("Playwright for Python (.venv/bin/pip install playwright)")
    if missing:
        message = f"the browser test needs {' and '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: in CI it must run, not skip", pytrace=False)
        pytest.skip(f"{message}; install {'them' if len(missing) > 1 else 'it'} to run it")


class Lab(NamedTuple):
    home: Path  # JupyterLab's root folder: release/ and solved/
    url: str
    token: str
    process: subprocess.Popen
    log: Path

    def wait_until_up(self, seconds: float = 300) -> None:  # a loaded machine can take minutes
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited ({self.process.returncode}):\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise TimeoutError(f"JupyterLab did not answer within {seconds:.0f} s:\n{self.log.read_text()[-3000:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    _require_browser()
    home = tmp_path_factory.mktemp("lab")
    shutil.copytree(RELEASE, home / "release", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOURCE, home / "solved", ignore=shutil.ignore_patterns("__pycache__"))
    for name, values in LAB_SETTINGS.items():
        path = home / ".settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "JUPYTER_CONFIG_DIR", "PYTHONPATH")}
    env.update(
        # The solved notebooks' hidden checks import autograder/ and solutions/, as
        # under nbgrader (nbgrader_config.py sets the same path).
        PYTHONPATH=str(ROOT), JUPYTER_CONFIG_DIR=str(home / ".config"), JUPYTER_RUNTIME_DIR=str(home / ".runtime"),
        IPYTHONDIR=str(home / ".ipython"), PATH=os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]]))
    log = tmp_path_factory.mktemp("lab-log") / "lab.log"
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={home}", f"--LabApp.user_settings_dir={home / '.settings'}",
               f"--LabApp.workspaces_dir={home / '.workspaces'}", "--LabApp.expose_app_in_browser=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines often run as root
        command.append("--allow-root")
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=home, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        yield Lab(home, url, token, process, log)  # still starting: Chromium starts meanwhile
    finally:
        try:  # shuts the kernels down too
            urllib.request.urlopen(urllib.request.Request(f"{url}/api/shutdown?token={token}", method="POST"),
                                   timeout=5)
        except OSError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page(browser, lab):
    """One JupyterLab page for the whole module: the app loads once."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    lab.wait_until_up()
    page.goto(f"{lab.url}/lab?token={lab.token}&reset")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("() => window.jupyterapp.restored")
    yield page
    page.close()


def _open(page, path: str) -> None:
    """Open the notebook `path` alone and wait until its kernel is idle."""
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    page.wait_for_function("""path => {
        const widget = window.jupyterapp.shell.currentWidget;
        return widget?.context?.path === path && widget.sessionContext?.session?.kernel?.status === 'idle'
            && widget.node.querySelectorAll('.jp-Cell').length > 0;
    }""", arg=path, timeout=60_000)


def _run_all(page, path: str) -> list[dict]:
    """Open `path` alone, run all its cells from the Run menu as a student does; what each cell shows."""
    _open(page, path)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    # Done when no cell waits ([*]) and either the last cell ran or a cell failed (the
    # kernel then drops the cells after it, as it does for a student).
    page.wait_for_function(f"""() => {{
        const notebook = window.jupyterapp.shell.currentWidget.node;
        const prompts = [...notebook.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim());
        return prompts.length > 0 && !prompts.some(t => t.includes('*'))
            && (/\\d/.test(prompts[prompts.length - 1]) || !!notebook.querySelector('{STDERR}'));
    }}""", timeout=90_000)
    return page.evaluate(f"""() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-Cell')]
        .map(cell => ({{
        prompt: cell.querySelector('.jp-InputPrompt')?.textContent.trim() ?? '',
        errors: [...cell.querySelectorAll('.jp-OutputArea-output{STDERR}')].map(e => e.innerText),
        text: cell.querySelector('.jp-OutputArea')?.innerText ?? '',
        images: [...cell.querySelectorAll('.jp-OutputArea img')].map(i => i.complete ? i.naturalWidth : 0),
    }}))""")


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


def _grade_id(cell: dict) -> str:
    return cell["metadata"].get("nbgrader", {}).get("grade_id", "")


def _is_figure(cell: dict) -> bool:
    source = "".join(cell["source"])
    return cell["cell_type"] == "code" and "figures." in source


def _the_release_stops_at_the_first_exercise(page) -> None:
    cells = _cells(RELEASE / FIRST)
    shown = _run_all(page, f"release/{FIRST}")
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
    shown = _run_all(page, f"solved/{PICTURES}")
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
    _open(page, f"release/{WRITTEN}")
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
    while "".join(_cells(saved)[answer]["source"]) != typed and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "".join(_cells(saved)[answer]["source"]) == typed, "the typed answer was not saved in its cell"
    assert typed in _cell_node(page, answer).inner_text()  # rendered as the student's own text
    _screenshot(page, question, "student-written.png")


def test_does_a_student_see_the_release_stop_at_its_first_stub_and_a_solved_notebook_pass_with_its_figures(page, lab):
    # One test, so that pytest-xdist never starts a second JupyterLab and Chromium for the second half.
    _the_release_stops_at_the_first_exercise(page)
    _a_solved_notebook_passes_and_draws_every_figure(page)
    _a_written_answer_is_typed_into_its_cell_and_saved(page, lab.home)
