"""JupyterLab on loopback, in Chromium (tests/shared/browser.py): what the browser room's tests share.

tests/browser/test_browser.py (a student in JupyterLab) and tests/browser/test_accessibility.py (the audit of
every page the kit makes, JupyterLab's notebooks among them) use them.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from tests.shared.browser import LAB_SETTINGS

STDERR = '[data-mime-type="application/vnd.jupyter.stderr"]'  # how JupyterLab marks errors and stderr


class Lab(NamedTuple):
    home: Path  # JupyterLab's root folder
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(home: Path, log: Path, pythonpath: Path) -> Iterator[Lab]:
    """JupyterLab 4 (with nbgrader's extension) serving `home` on 127.0.0.1 behind a token, its kernels
    importing from `pythonpath`; yielded while still starting (see Lab.wait_until_up), shut down after."""
    for name, values in LAB_SETTINGS.items():
        path = home / ".settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "JUPYTER_CONFIG_DIR", "PYTHONPATH")}
    env.update(
        PYTHONPATH=str(pythonpath), JUPYTER_CONFIG_DIR=str(home / ".config"), JUPYTER_RUNTIME_DIR=str(home / ".runtime"),
        IPYTHONDIR=str(home / ".ipython"), PATH=os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]]))
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
        yield Lab(home, url, token, process, log)
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


def lab_page(browser, lab: Lab):
    """A JupyterLab page at 1280 × 900, the app loaded and restored."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    lab.wait_until_up()
    page.goto(f"{lab.url}/lab?token={lab.token}&reset")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate("() => window.jupyterapp.restored")
    return page


def open_notebook(page, path: str) -> None:
    """Open the notebook `path` alone and wait until its kernel is idle."""
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    page.wait_for_function("""path => {
        const widget = window.jupyterapp.shell.currentWidget;
        return widget?.context?.path === path && widget.sessionContext?.session?.kernel?.status === 'idle'
            && widget.node.querySelectorAll('.jp-Cell').length > 0;
    }""", arg=path, timeout=60_000)


def run_all(page, path: str) -> list[dict]:
    """Open `path` alone, run all its cells from the Run menu as a student does; what each cell shows."""
    open_notebook(page, path)
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
    return shown_cells(page)


def shown_cells(page) -> list[dict]:
    """What each cell of the notebook in front shows: its prompt, errors, output text and images' widths."""
    return page.evaluate(f"""() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-Cell')]
        .map(cell => ({{
        prompt: cell.querySelector('.jp-InputPrompt')?.textContent.trim() ?? '',
        errors: [...cell.querySelectorAll('.jp-OutputArea-output{STDERR}')].map(e => e.innerText),
        text: cell.querySelector('.jp-OutputArea')?.innerText ?? '',
        images: [...cell.querySelectorAll('.jp-OutputArea img')].map(i => i.complete ? i.naturalWidth : 0),
    }}))""")
