"""A real JupyterHub on 127.0.0.1 for tests/hand_in/test_hub.py, started and stopped by the test (root only).

`accounts()` makes the system accounts (an instructor who is not root, two students; homes at mode
700, passwords through chpasswd). `running_hub()` starts JupyterHub (PAM login, LocalProcessSpawner:
each server runs as its own account) with configurable-http-proxy from npm (`make hub`), its database
and cookie secret in a temporary folder. The instructor's single-user server runs the environment every
account can run (tests/shared/shared_python.py `environment()`) in their own copy of the course; each
student's runs the students' environment `python -m kit.hub students` made (tests/hand_in/students_python.py). The hub and its servers live in a mount namespace of their own in which the folder given
as `etc_jupyter` is /etc/jupyter: the test writes the students' configuration with `python -m kit.hub
setup --config-dir` and the servers read it where a real hub's do, at the system level, below each
environment's and each user's own configuration, without touching this machine's /etc/jupyter.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

from tests.shared.accounts import make_account, run_as, set_password, stop_processes_of
from tests.shared.shared_python import CACHE

CHP_PREFIX = CACHE / "configurable-http-proxy"  # `make hub`: npm install --prefix
CHP = CHP_PREFIX / "node_modules" / ".bin" / "configurable-http-proxy"
INSTRUCTOR = "attention-hub-teach"
STUDENTS = ("attention-hub-ann", "attention-hub-bo")
SERVICE = "kit-test"  # the test's own token: starts the instructor's server and calls its APIs
WAIT = 600  # seconds: a loaded two-core machine starts a server in tens of seconds, rarely minutes

HUB_CONFIG = """\
c = get_config()  # noqa: F821
c.JupyterHub.bind_url = {url!r}
c.JupyterHub.hub_bind_url = {hub_url!r}
c.ConfigurableHTTPProxy.api_url = {proxy_api!r}
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.JupyterHub.db_url = {db!r}
c.JupyterHub.cookie_secret_file = {cookie!r}
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = {users!r}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [{python!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--LabApp.expose_app_in_browser=True"]  # the test waits for window.jupyterapp
c.Spawner.default_url = "/lab"
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = c.Spawner.http_timeout = {wait!r}
c.JupyterHub.services = [{{"name": {service!r}, "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": {service!r}, "services": [{service!r}],
                             "scopes": ["admin:users", "admin:servers", "access:servers"]}}]


def each_in_their_own(spawner):
    # The instructor's server runs in their course folder: nbgrader reads its nbgrader_config.py there,
    # which imports kit/ from that folder. A student's runs the students' environment (`python -m kit.hub
    # students`), as README's hub section sets it up: nothing of the course in it.
    if spawner.user.name == {instructor!r}:
        spawner.cmd = ["/usr/bin/env", "-C", {course!r}, *spawner.cmd]
        spawner.notebook_dir = {course!r}
        spawner.environment = {{**spawner.environment, "PYTHONPATH": {course!r}}}
    else:
        spawner.cmd = [{students_python!r}, "-m", "jupyterhub.singleuser"]
        spawner.environment = {{**spawner.environment, "PATH": {students_path!r}}}


c.Spawner.pre_spawn_hook = each_in_their_own
"""
SUBCONFIG = """load_subconfig({path!r})  # what `python -m kit.hub setup --hub-config` wrote
"""


def why_unavailable() -> str | None:
    """Why this machine cannot run the hub test, or None."""
    if os.geteuid() != 0:
        return "the hub test needs root (it makes system accounts and runs servers as them)"
    missing = [what for what, there in [
        ("configurable-http-proxy (make hub)", CHP.exists()),
        ("jupyterhub (.venv/bin/pip install -e '.[test]')", importlib.util.find_spec("jupyterhub")),
        ("unshare (util-linux)", shutil.which("unshare")), ("node (apt-get install nodejs)", shutil.which("node"))]
        if not there]
    return f"the hub test needs {', '.join(missing)}" if missing else None


def accounts() -> dict[str, str]:
    """Fresh system accounts INSTRUCTOR and STUDENTS (tests/shared/accounts.py: homes at mode 700): name → password."""
    return {name: (make_account(name), set_password(name))[1] for name in (INSTRUCTOR, *STUDENTS)}


def as_account(account: str, python: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """Run the command line `args` as `account` in `cwd`, with a clean environment whose PATH starts
    with `python`'s folder (no TMPDIR, as a server the hub starts has none); not checked."""
    return run_as(account, *args, cwd=cwd, check=False, timeout=WAIT, PATH=f"{python.parent}:/usr/bin:/bin",
                  TMPDIR=None, **env)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub(NamedTuple):
    url: str
    token: str
    process: subprocess.Popen
    log: Path

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        """Call the hub's or a server's REST API (`path` from the root, e.g. /hub/api/users) with the test's token."""
        request = urllib.request.Request(f"{self.url}{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip() else {}

    def status(self, path: str) -> int:
        """The HTTP status of GET `path`, with the test's token."""
        try:
            return urllib.request.urlopen(urllib.request.Request(
                f"{self.url}{path}", headers={"Authorization": f"token {self.token}"}), timeout=WAIT).status
        except urllib.error.HTTPError as e:
            return e.code

    def wait_until_up(self) -> None:
        _wait(lambda: self.status("/hub/api/") == 200, self, "the hub did not answer")

    def start_server(self, user: str) -> None:
        """Start `user`'s server through the hub's API and wait until it is ready."""
        with contextlib.suppress(urllib.error.HTTPError):  # 400: already running
            self.api("POST", f"/hub/api/users/{user}/server")
        _wait(lambda: (self.api("GET", f"/hub/api/users/{user}")["servers"].get("", {}).get("ready")), self,
              f"{user}'s server did not start")

    def run_in_terminal(self, user: str, command: str) -> tuple[int, str]:
        """Type `command` into a new terminal of `user`'s server (JupyterLab's Terminal, over its REST
        and websocket API); its exit status and what the terminal showed."""
        name = self.api("POST", f"/user/{user}/api/terminals")["name"]
        try:
            # In a thread of its own: the caller may be inside an event loop (Playwright's sync API).
            with ThreadPoolExecutor(1) as thread:
                return thread.submit(asyncio.run, _type_and_read(
                    self, f"/user/{user}/terminals/websocket/{name}", command)).result()
        finally:
            with contextlib.suppress(urllib.error.HTTPError):
                self.api("DELETE", f"/user/{user}/api/terminals/{name}")


async def _type_and_read(hub: Hub, path: str, command: str) -> tuple[int, str]:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    socket_ = await websocket_connect(HTTPRequest(hub.url.replace("http", "ws", 1) + path,
                                                  headers={"Authorization": f"token {hub.token}"}))
    # The marker is printed, never typed whole, so the echoed command does not end the wait.
    socket_.write_message(json.dumps(["stdin", f"{command}; printf '%s-%s %s\\n' KIT TERMINAL-DONE $?\r"]))
    shown, deadline = "", time.monotonic() + WAIT
    while "KIT-TERMINAL-DONE " not in shown.replace("\r", ""):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"{command!r} did not finish within {WAIT} s:\n{shown[-3000:]}")
        message = await asyncio.wait_for(socket_.read_message(), timeout=left)
        if message is None:
            raise RuntimeError(f"the terminal closed:\n{shown[-3000:]}")
        kind, *content = json.loads(message)
        if kind == "stdout":
            shown += content[0]
    socket_.close()
    status = shown.replace("\r", "").split("KIT-TERMINAL-DONE ", 1)[1].split()[0]
    return int(status), shown


def _wait(ready, hub: Hub, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if hub.process.poll() is not None:
            raise RuntimeError(f"JupyterHub exited ({hub.process.returncode}):\n{hub.log.read_text()[-5000:]}")
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"{what} within {WAIT} s:\n{hub.log.read_text()[-5000:]}")


@contextlib.contextmanager
def running_hub(folder: Path, python: Path, students_python: Path, course: Path, etc_jupyter: Path,
                subconfig: Path | None = None) -> Iterator[Hub]:
    """JupyterHub in `folder`, the instructor's server running `python` in `course`, the students'
    `students_python`, with `etc_jupyter` as their /etc/jupyter, and `subconfig` loaded after its own
    configuration (the grading service: kit/hub/managed_service.py); stopped, with every server and
    service, when the block ends."""
    port, token = free_port(), secrets.token_hex(24)
    url = f"http://127.0.0.1:{port}"
    config = folder / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        url=url, hub_url=f"http://127.0.0.1:{free_port()}", proxy_api=f"http://127.0.0.1:{free_port()}",
        chp=str(CHP), db=f"sqlite:///{folder / 'jupyterhub.sqlite'}", cookie=str(folder / "cookie_secret"),
        users={INSTRUCTOR, *STUDENTS}, python=str(python), wait=WAIT, service=SERVICE, token=token,
        environment={"PATH": f"{python.parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "SHELL": "/bin/bash"},
        instructor=INSTRUCTOR, course=str(course), students_python=str(students_python),
        students_path=f"{students_python.parent}:/usr/bin:/bin") + (SUBCONFIG.format(path=str(subconfig))
                                                                   if subconfig else ""))
    Path("/etc/jupyter").mkdir(exist_ok=True)  # the mount point (empty on a machine that has none)
    log = folder / "jupyterhub.log"
    command = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
               'mount --bind "$0" /etc/jupyter && exec "$@"', str(etc_jupyter),
               sys.executable, "-m", "jupyterhub", "-f", str(config)]
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   env={**os.environ, "PATH": f"/usr/bin:/bin:{os.environ.get('PATH', '')}"})
    hub = Hub(url, token, process, log)
    try:
        hub.wait_until_up()
        yield hub
    finally:
        _stop(hub)


def _stop(hub: Hub) -> None:
    """Stop every server through the hub, then the hub (and its proxy); what is left, by pid."""
    for user in (INSTRUCTOR, *STUDENTS):
        with contextlib.suppress(OSError):
            hub.api("DELETE", f"/hub/api/users/{user}/server")
    hub.process.send_signal(signal.SIGTERM)
    try:
        hub.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(hub.process.pid, signal.SIGKILL)
        hub.process.wait()
    for user in (INSTRUCTOR, *STUDENTS):
        stop_processes_of(user)
