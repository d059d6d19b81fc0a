"""A Dask cluster of the test suite's own: `dask scheduler` and `dask worker` processes on 127.0.0.1.

Each is a separate process started with this environment's `dask` command, as
an instructor would start them on other machines, with the kit's generous
timeouts (autograder.cluster.DASK_ENVIRONMENT). The scheduler takes a free port
and writes its address to a file; nothing listens beyond loopback; no dashboard.

Workers run with one thread (one student at a time, as README advises) and no
nanny: the process a test kills is the one that grades, and nothing restarts it,
so the student it held can only be graded again by another worker.

    with running_cluster(folder) as cluster:
        cluster.start_worker("first")
        cluster.wait_for(["first"])
        ... KIT_GRADING_SCHEDULER=cluster.address ...
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

from autograder.cluster import DASK_ENVIRONMENT, DASK_SETTINGS

DASK = Path(sys.executable).parent / "dask"
START_SECONDS = 600  # a bound, not an expectation: a loaded machine starts Python processes slowly


def why_unavailable() -> str | None:
    """Why this environment cannot start a cluster; None when it can."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "the package `distributed` is not installed (`make test` installs it: pip install -e '.[test]')"
    if not DASK.exists():
        return f"no `dask` command beside this Python ({DASK})"
    return None


class Cluster:
    def __init__(self, folder: Path):
        self.folder = folder
        self.processes: dict[str, subprocess.Popen] = {}
        self.address = self.client = None

    def start_scheduler(self) -> None:
        import dask
        from distributed import Client

        self.folder.mkdir(parents=True, exist_ok=True)
        self.processes["scheduler"] = self._start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                                  "--scheduler-file", str(self.folder / "scheduler.json"))
        self.address = self._scheduler_address(self.folder / "scheduler.json")
        dask.config.set(DASK_SETTINGS)
        self.client = Client(self.address, timeout=START_SECONDS, set_as_default=False)

    def _start(self, name: str, *args: str, **env: str) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "w")  # read when a test fails: the workers' own account
        return subprocess.Popen([str(DASK), *args], cwd=self.folder, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **DASK_ENVIRONMENT, **env})

    def _scheduler_address(self, path: Path) -> str:
        deadline = time.monotonic() + START_SECONDS
        while not path.exists() or not path.read_text().strip():
            if self.processes["scheduler"].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Dask scheduler did not start:\n{self.log('scheduler')}")
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written in one go, but may be caught half-written
        return json.loads(path.read_text())["address"]

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text()[-3000:]

    def start_worker(self, name: str, **env: str) -> subprocess.Popen:
        """A worker process named `name`, with these environment variables besides this process's."""
        (self.folder / name).mkdir()
        self.processes[name] = self._start(name, "worker", self.address, "--name", name, "--host", "127.0.0.1",
                                           "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                           "--local-directory", str(self.folder / name), **env)
        return self.processes[name]

    def workers(self) -> dict[str, str]:
        """name → address of the workers the scheduler knows now."""
        return {info["name"]: address for address, info in self.client.scheduler_info()["workers"].items()}

    def wait_for(self, names: list[str]) -> None:
        deadline = time.monotonic() + START_SECONDS
        while not set(names) <= set(self.workers()):
            for name in names:
                if self.processes[name].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the Dask worker {name} did not join:\n{self.log(name)}")
            time.sleep(0.2)

    def stop(self) -> None:
        """Workers first, while the scheduler can still take their goodbyes (a worker whose scheduler has
        gone retries for the kit's long connect timeout); whatever has not ended in a few seconds is killed."""
        if self.client is not None:
            self.client.close()
        workers = [p for name, p in self.processes.items() if name != "scheduler"]
        for group in (workers, [self.processes["scheduler"]] if "scheduler" in self.processes else []):
            for process in group:
                if process.poll() is None:
                    process.terminate()
            for process in group:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@contextlib.contextmanager
def running_cluster(folder: Path) -> Iterator[Cluster]:
    cluster = Cluster(folder)
    try:
        cluster.start_scheduler()
        yield cluster
    finally:
        cluster.stop()
