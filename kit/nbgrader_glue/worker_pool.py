"""Students' folders handed to worker processes forked from nbgrader's, one student at a time each.

`convert_in_workers` runs `convert(folder, payload)` (nbgrader's own loop on
that one student, in autograde.py and feedback.py) in `workers` processes
forked from this one, each inheriting its configuration. A worker process that
dies takes only the students it had with it: they are tried again in a fresh
pool, MAX_TRIES times in all. Folders may come in while the pool works (the
cluster's reports, as they come back), and the pool's processes are forked as
it opens, before whatever produces them starts threads of its own.

The pool is concurrent.futures' ProcessPoolExecutor, forked (`fork`: the
workers inherit `convert` and everything it reaches, so nothing is pickled but
the folders and their payloads). Its initializer hands `convert` to each
worker process: `_convert` is that process's own, set once as it starts.

What a worker logs comes back with its student's result and is logged here, in
order, by this process's own log: a worker's copy of the log's stream (the
in-memory one `kit.nbgrader_cli.run_here` gives nbgrader) would keep it.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

MAX_TRIES = 3  # a student whose worker process died is tried again, up to this many times in all

Convert = Callable[[str, object], bool]  # (folder, payload) → converted?
_convert: Convert | None = None  # in a worker process only: what it runs (set by the pool's initializer)
_logged: list[tuple[int, str]] = []  # in a worker process only: what it logged for the folder it converts


class _Kept(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        _logged.append((record.levelno, self.format(record)))


def _become_worker(convert: Convert, log: logging.Logger) -> None:
    global _convert
    _convert = convert
    log.handlers, log.propagate = [_Kept()], False  # this process's copy of the log: sent back with each result


def _run(folder: str, payload: object) -> tuple[bool, list[tuple[int, str]]]:
    _logged.clear()
    converted = _convert(folder, payload)
    return converted, list(_logged)


class WorkerPool:
    """Forked worker processes converting folders; `failed` collects those that could not be converted."""

    def __init__(self, workers: int, convert: Convert, log):
        self.workers, self.convert, self.log = workers, convert, log
        self.failed: list[str] = []
        self._tries: dict[str, int] = {}
        self._pool: ProcessPoolExecutor | None = None

    def _open(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_become_worker, initargs=(self.convert, self.log))
        pool.submit(int)  # with fork, the first task forks every process of the pool, here and now
        return pool

    def __enter__(self) -> WorkerPool:
        self._pool = self._open()
        return self

    def __exit__(self, *exc) -> None:
        self._pool.shutdown()

    def convert_all(self, ready: Iterable[tuple[str, object]]) -> None:
        """Convert every (folder, payload) of `ready` as it comes, then again in fresh pools each folder
        whose process died; adds those that could not be converted to `failed`."""
        payloads = {}

        def remembered():
            for folder, payload in ready:
                payloads[folder] = payload
                yield folder, payload

        again = self._convert_in(self._pool, remembered())
        while again:
            self.log.warning("A worker process ended; converting again: %s", ", ".join(again))
            with self._open() as pool:
                again = self._convert_in(pool, ((folder, payloads[folder]) for folder in again))

    def _convert_in(self, pool: ProcessPoolExecutor, ready: Iterable[tuple[str, object]]) -> list[str]:
        """Convert every (folder, payload) of `ready` in the pool; returns the folders to try again."""
        futures, again = {}, []
        for folder, payload in ready:
            try:
                futures[pool.submit(_run, folder, payload)] = folder
            except BrokenProcessPool:  # a worker process died while folders were still coming in
                again.append(folder)
        for future in as_completed(futures):
            folder = futures[future]
            try:
                converted, logged = future.result()
            except BrokenProcessPool:
                self._tries[folder] = self._tries.get(folder, 1) + 1
                (again if self._tries[folder] <= MAX_TRIES else self.failed).append(folder)
                continue
            for level, text in logged:
                self.log.log(level, "%s", text)
            if not converted:
                self.failed.append(folder)
        return sorted(again)
