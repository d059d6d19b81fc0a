"""System accounts for the tests that act as several people on one machine (root only): make one, run a
command as it, give it a file. Each command runs with a clean environment, the way a login would start
it, in the world-readable Python environment of tests/adversarial/unprivileged.py."""

from __future__ import annotations

import pwd
import subprocess
from pathlib import Path

from tests.adversarial.unprivileged import environment


def make_account(name: str) -> Path:
    """The account `name` (made if missing); returns its home folder, made anew (mode 700)."""
    if subprocess.run(["id", name], capture_output=True).returncode:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
    home = Path(pwd.getpwnam(name).pw_dir)
    subprocess.run(["find", home, "-mindepth", "1", "-delete"], check=True)
    home.chmod(0o700)
    return home


def give(account: str, *paths: Path) -> None:
    """Make `paths` (and all below them) belong to `account`."""
    subprocess.run(["chown", "-R", f"{account}:{account}", *paths], check=True)


def command_as(account: str, *command: str | Path) -> list[str]:
    """The command line that runs `command` as `account`, as a login would; "python" as its first word is the
    shared environment's."""
    home = Path(pwd.getpwnam(account).pw_dir)
    words = [str(environment()) if word == "python" else str(word) for word in command]
    env = [f"HOME={home}", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", f"TMPDIR={home}"]
    return ["runuser", "-u", account, "--", "env", "-i", *env, *words]


def run_as(account: str, *command: str | Path, cwd: Path, check: bool = True,
           timeout: float = 600) -> subprocess.CompletedProcess:
    """`command` as `account` in folder `cwd`, its output captured; checked unless check=False."""
    result = subprocess.run(command_as(account, *command), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and result.returncode:
        raise AssertionError(f"{' '.join(map(str, command))} as {account} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result
