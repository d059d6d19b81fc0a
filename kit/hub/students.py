"""Every account's view of nbgrader on the hub: the students' (Assignment List and Validate only) for
everyone, from the system's Jupyter configuration (/etc/jupyter), and the instructor's (the formgrader,
Create Assignment and the Course List too) back at user level, in their ~/.jupyter.

Which level wins, as read from jupyter_server and JupyterLab 4: nbgrader's pip install enables its server
extensions in the environment's own etc/jupyter (JSON), which outranks /etc/jupyter's JSON, so
`jupyter server extension disable --system` changes nothing. A `c.ServerApp.jpserver_extensions` set in a
Python config file outranks every JSON file, so that is what is written here, in /etc/jupyter for
everyone and in the instructor's ~/.jupyter over it. JupyterLab merges each level's
labconfig/page_config.json key by key, so a front-end plugin is disabled system-wide and enabled again
at user level there (as `jupyter labextension disable --level=system` would write).

The instructor's files are written by a child process that is the instructor (`as_account`), so a link in
their home leads nowhere they could not write themselves. A student can still enable the formgrader in
their own ~/.jupyter: it then serves their own files, as
their account. What a student can reach is set by file permissions (exchange.py), not by these menus.
"""

from __future__ import annotations

import json
import os
import pwd
from collections.abc import Callable
from pathlib import Path

INSTRUCTOR_ONLY_SERVER = ["nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"]
INSTRUCTOR_ONLY_LAB = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                       "@jupyter/nbgrader:course-list"]
BEGIN, END = "# >>> python -m kit.hub setup >>>", "# <<< python -m kit.hub setup <<<"


def for_everyone(config_dir: Path, course_id: str, exchange: Path) -> list[Path]:
    """Write the students' nbgrader and Jupyter configuration into `config_dir` (/etc/jupyter)."""
    nbgrader = f"c.CourseDirectory.course_id = {course_id!r}\nc.Exchange.root = {str(exchange)!r}\n"
    return [write_block(config_dir / "nbgrader_config.py", nbgrader),
            write_block(config_dir / "jupyter_server_config.py", _server_extensions(enabled=False)),
            _write_page_config(config_dir, enabled=False)]


def for_instructor(instructor: str) -> list[Path]:
    """Enable the instructor-only parts again in `instructor`'s ~/.jupyter, written as the instructor."""
    config_dir = Path(pwd.getpwnam(instructor).pw_dir) / ".jupyter"
    return as_account(instructor, lambda: [
        write_block(config_dir / "jupyter_server_config.py", _server_extensions(enabled=True)),
        _write_page_config(config_dir, enabled=True)])


def as_account(name: str, write: Callable[[], list[Path]]) -> list[Path]:
    """Run `write` in a child process that is the account `name` (its uid and group, no other group), and
    return what it wrote. The account's home is theirs: a link they made there (~/.jupyter pointing at
    /etc) must lead root nowhere, so their files are written with their rights alone."""
    account = pwd.getpwnam(name)
    reply_from, reply_to = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(reply_from)
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            os.umask(0o022)
            reply, code = {"written": [str(path) for path in write()]}, 0
        except BaseException as e:  # noqa: BLE001 - whatever happened is the parent's to report
            reply = {"error": f"{type(e).__name__}: {e}"}
        finally:
            os.write(reply_to, json.dumps(reply).encode())
            os._exit(code)
    os.close(reply_to)
    with os.fdopen(reply_from, "rb") as replies:
        reply = json.loads(replies.read() or b'{"error": "the child wrote nothing"}')
    os.waitpid(pid, 0)
    if "error" in reply:
        raise PermissionError(f"writing {name}'s configuration as {name}: {reply['error']}")
    return [Path(path) for path in reply["written"]]


def _server_extensions(enabled: bool) -> str:
    return f"c.ServerApp.jpserver_extensions.update({ {name: enabled for name in INSTRUCTOR_ONLY_SERVER} !r})\n"


def write_block(path: Path, text: str, mode: int | None = 0o644) -> Path:
    """Put `text` in `path` between this command's markers, replacing an earlier block, keeping the rest; the
    file's mode `mode` (None: an existing file's own, 0600 for a new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else "c = get_config()  # noqa: F821\n"
    if mode is None:
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o600
    if BEGIN in old:
        before, _, rest = old.partition(BEGIN)
        old = before + rest.partition(END)[2].lstrip("\n")
    path.write_text(f"{old.rstrip()}\n{BEGIN}\n{text}{END}\n")
    path.chmod(mode)
    return path


def _write_page_config(config_dir: Path, enabled: bool) -> Path:
    path = config_dir / "labconfig" / "page_config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    page = json.loads(path.read_text()) if path.exists() else {}
    page.setdefault("disabledExtensions", {}).update({name: not enabled for name in INSTRUCTOR_ONLY_LAB})
    path.write_text(json.dumps(page, indent=2) + "\n")
    path.chmod(0o644)
    return path
