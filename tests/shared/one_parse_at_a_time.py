"""`ast.parse` behind a lock, for the tests that grade several submissions in threads of one process.

CPython before 3.11.5 (Debian 12 has 3.11.2, the ordinary account's Python: tests/shared/shared_python.py) keeps the AST converter's recursion depth in state all threads share, so two threads
parsing at once can fail with "SystemError: AST constructor recursion depth mismatch" (fixed upstream in
3.11.5). The kit's grading paths parse in one thread per process (workers and Dask graders are processes);
only the suite grades in threads, so the suite takes turns here. Importing this module installs it.
"""

from __future__ import annotations

import ast
import functools
import threading

_turn = threading.Lock()


def _one_at_a_time(parse):
    if getattr(parse, "one_at_a_time", False):
        return parse

    @functools.wraps(parse)
    def locked(*args, **kwargs):
        with _turn:
            return parse(*args, **kwargs)
    locked.one_at_a_time = True
    return locked


ast.parse = _one_at_a_time(ast.parse)
