"""A PostgreSQL server of the test suite's own, in a temporary folder.

Debian's `postgresql` package provides the server (`make test` installs it
when root). `initdb` makes a cluster in a fresh folder and `pg_ctl` starts it
listening on a Unix socket in that folder only (no TCP port, so nothing else
on the machine can reach it, and no port to collide with another run). initdb
refuses to run as root: as root, the server runs as the package's `postgres`
system user (through runuser); as anyone else, as that user.

    with running_server() as server:
        url = server.new_database("loop")   # postgresql+psycopg://kit@/loop?host=/tmp/...
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

SUPERUSER = "kit"  # the cluster's superuser; trust authentication on the folder's socket


def binaries() -> Path | None:
    """The newest installed server's bin folder (/usr/lib/postgresql/<version>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name)
                   if p.parent.parent.name.isdigit() else 0)
    return found[-1].parent if found else None


def why_unavailable() -> str | None:
    """Why this machine cannot run the suite's server; None when it can."""
    if binaries() is None:
        return "Debian's postgresql is not installed (`make test` installs it when run as root)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "initdb refuses root and there is no `postgres` user to run it as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    return None


class Server:
    def __init__(self, folder: Path):
        self.folder = folder

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.folder}"

    def new_database(self, name: str) -> str:
        """A fresh, empty database on this server; returns its SQLAlchemy URL."""
        import psycopg

        with psycopg.connect(host=str(self.folder), user=SUPERUSER, dbname="postgres", autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}"')
            con.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    bin_dir = binaries()
    folder = Path(tempfile.mkdtemp(prefix="kit-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
    run = lambda *args: subprocess.run(_as_server_user([str(bin_dir / args[0]), *args[1:]]),  # noqa: E731
                                       check=True, capture_output=True, text=True)
    try:
        try:
            run("initdb", "-D", str(data), "-U", SUPERUSER, "--auth=trust", "--no-sync", "-E", "UTF8")
            # fsync off: the data folder is thrown away after the run, durability buys nothing here
            run("pg_ctl", "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "120", "start",
                "-o", f"-c listen_addresses='' -k {folder} -c fsync=off -c full_page_writes=off")
        except subprocess.CalledProcessError as e:
            log = folder / "server.log"
            raise RuntimeError(f"{' '.join(e.cmd)}: {e.stderr.strip()}"
                               + (f"\n{log.read_text()[-2000:]}" if log.exists() else "")) from None
        yield Server(folder)
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
                           capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
