"""System accounts for the tests that act as several people on one machine (root only): make one, give it a
password or a file, run a command as it. Each command runs with a clean environment, the way a login would
start it; "python" as a command's first word is the environment every account can run (tests/shared/shared_python.py)."""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import signal
import subprocess
from pathlib import Path

from tests.shared.shared_python import environment


def make_account(name: str, home: Path | None = None) -> Path:
    """The account `name` (made if missing), with nothing of an earlier run left running as it; returns its home
    folder (`home`, or useradd's choice), made anew at mode 700 (Debian's useradd makes 0755 homes: another
    account could read this one's)."""
    if subprocess.run(["id", name], capture_output=True).returncode:
        at = ["--home-dir", str(home)] if home else []
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", *at, name], check=True)
    elif home is not None and Path(pwd.getpwnam(name).pw_dir) != home:
        subprocess.run(["usermod", "--home", str(home), name], check=True)
    stop_processes_of(name)
    home = Path(pwd.getpwnam(name).pw_dir)
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["find", home, "-mindepth", "1", "-delete"], check=True)
    give(name, home)
    home.chmod(0o700)
    return home


def set_password(name: str) -> str:
    """A fresh password for the account `name` (through chpasswd); returns it."""
    password = secrets.token_urlsafe(12)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
    return password


def stop_processes_of(account: str) -> None:
    """End what runs as `account` (servers a killed run left behind), by pid."""
    listed = subprocess.run(["ps", "-u", account, "-o", "pid="], capture_output=True, text=True).stdout
    for pid in listed.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


def give(account: str, *paths: Path) -> None:
    """Make `paths` (and all below them) belong to `account`."""
    subprocess.run(["chown", "-R", f"{account}:{account}", *paths], check=True)


def command_as(account: str, *command: str | Path, **env: str | None) -> list[str]:
    """The command line that runs `command` as `account`, as a login would: HOME, PATH=/usr/bin:/bin, LANG, USER
    and TMPDIR (its home) set, then `env` (a variable given None is left unset)."""
    home = Path(pwd.getpwnam(account).pw_dir)
    words = [str(environment()) if word == "python" else str(word) for word in command]
    variables = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "USER": account,
                 "TMPDIR": str(home), **env}
    return ["runuser", "-u", account, "--", "env", "-i",
            *(f"{name}={value}" for name, value in variables.items() if value is not None), *words]


def run_as(account: str, *command: str | Path, cwd: Path, check: bool = True, timeout: float = 600,
           **env: str | None) -> subprocess.CompletedProcess:
    """`command` as `account` in folder `cwd` (see command_as), its output captured; checked unless check=False."""
    result = subprocess.run(command_as(account, *command, **env), cwd=cwd, capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode:
        raise AssertionError(f"{' '.join(map(str, command))} as {account} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result
