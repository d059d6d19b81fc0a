"""The formgrader, started for real in a test: a Jupyter server with nbgrader's extension, in a course
folder, on 127.0.0.1 with token authentication (the tests call its HTTP API as a grader's browser does)."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Formgrader:
    """A running formgrader: `api` calls its JSON API, `page` fetches a page."""

    def __init__(self, port: int, token: str):
        self.port, self.token = port, token

    def _open(self, path: str, method: str = "GET", body: dict | None = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read()

    def api(self, path: str, method: str = "GET", body: dict | None = None):
        return json.loads(self._open(path, method, body))

    def page(self, path: str) -> str:
        return self._open(path).decode()


@contextmanager
def running(course: Path, env: dict | None = None) -> Iterator[Formgrader]:
    """The formgrader of `course`, until the block ends; its log is course/server.log."""
    port, token = free_port(), secrets.token_hex(16)
    log = open(course / "server.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "server", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False", f"--ServerApp.root_dir={course}",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=course, stdout=subprocess.DEVNULL, stderr=log,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(course), **(env or {})})
    formgrader = Formgrader(port, token)
    try:
        for _ in range(600):  # a loaded machine can take a minute or two to start it
            try:
                formgrader.api("/api/status")
                break
            except OSError:
                assert server.poll() is None, (course / "server.log").read_text()[-3000:]
                time.sleep(0.5)
        yield formgrader
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
