"""Chromium driven by Playwright: the one launcher of every test that opens a page.

tests/browser/ (a student in JupyterLab, tests/browser/jupyterlab.py; the audit of every page the kit makes),
tests/notebooks/test_explorer.py (the Model Explorer page), the hub, the report's and the written answers' pages
use it. They need Debian's Chromium (`apt-get install -y chromium`;
another build of Chromium works through the CHROMIUM environment variable, its
path) and Playwright for Python (`.venv/bin/pip install playwright`; Playwright's
own browser download is not used). Without them a test skips and says how to
enable it, except in CI (the CI environment variable set), where it fails instead.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.notebooks import ROOT

DOCS = ROOT / "docs"  # where the browser tests save the screenshots README shows
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))  # Debian's; elsewhere set CHROMIUM
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# JupyterLab settings for a quiet, predictable page: every cell in the page
# (no windowing), no news or update pop-ups over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                       "checkForUpdates": False},
}


def require_browser() -> None:
    """Skip (fail under CI) unless Chromium and Playwright for Python are here."""
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


@contextlib.contextmanager
def chromium() -> Iterator:
    """A headless Chromium (Playwright's Browser), closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
