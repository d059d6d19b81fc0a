"""The process a student's code runs in: `python -I child.py JUDGE WORKDIR SECONDS`.

It loads the comparison module from JUDGE (a copy of the trusted judge.py the
parent made before any student code ran), runs the answer cells of the
notebooks in WORKDIR, and serves requests from the parent, one JSON line each on stdin:
``{"notebook", "answer", "seconds", "request"}``, the request being the
case's inputs (never its expected value) as base64 npz. The reply is one line
on stdout, base64 npz of plain data (`judge.plain`) that the parent reads with
``allow_pickle=False``. No file is shared, so nothing the student plants in
the scratch folder can redirect the parent. Nothing here decides a grade. Whatever the
student's code prints goes to /dev/null.
"""

import base64
import importlib.util
import json
import os
import sys


def _not_dumpable():
    """Other processes of the same user (another student's child) may not look
    into this one through /proc (its files, its memory, its working folder)."""
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4


def _answer(namespace, name):
    return next((namespace[k] for k in (name, name.upper(), f"{name}_output") if k in namespace), None)


def main():
    judge_path, workdir, seconds, isolated = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    if isolated == "isolated":
        _not_dumpable()
    spec = importlib.util.spec_from_file_location("_grading_judge", judge_path)
    judge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(judge)
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    loaded = {}  # notebook → [namespace, its answer cells, the next cell to run]
    for line in sys.stdin:
        request = json.loads(line)
        notebook, name = request["notebook"], request["answer"]
        if notebook not in loaded:
            loaded[notebook] = [judge.fresh_namespace(), judge.answer_cells(notebook), 0]
        namespace, cells, next_cell = loaded[notebook]
        # Run the notebook's cells only as far as the answer asked for.
        loaded[notebook][2] = judge.run_cells(cells, namespace, next_cell, seconds,
                                              until=lambda ns: _answer(ns, name) is not None, where=notebook)
        answer = _answer(namespace, name)
        case = judge.cases_from_bytes(base64.b64decode(request["request"]))[0]
        if answer is None:
            errors = [e for e in namespace["__cell_errors__"] if e.startswith(name)]
            outcome = ("not started", errors[0] if errors else f"{name} is not answered yet")
        else:
            with judge.time_limit(request.get("seconds", seconds)):
                outcome = judge.outcome_of(answer, case)
        if outcome[0] == "value":
            outcome = ("value", judge.plain(outcome[1]), *outcome[2:])
        replies.write(base64.b64encode(judge.cases_to_bytes([{"outcome": outcome}])).decode() + "\n")


if __name__ == "__main__":
    main()
