"""The process a student's code runs in: `python child.py JUDGE WORKDIR`.

It loads the comparison module from the trusted path JUDGE (never the
student's copy), runs the student's notebooks' answer cells from WORKDIR, and
serves requests from the parent, one per line on stdin:
``{"notebook": ..., "answer": ..., "request": "req.npz", "reply": "reply.npz"}``.
The request file holds only the inputs; the reply holds only plain data (see
`judge.plain`), and the parent reads it with ``allow_pickle=False``. The
parent then compares; nothing here decides a grade.
"""

import importlib.util
import json
import os
import sys


def _load_judge(path):
    spec = importlib.util.spec_from_file_location("_trusted_judge", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    judge_path, workdir = sys.argv[1], sys.argv[2]
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    log = os.open(os.path.join(workdir, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    judge = _load_judge(judge_path)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    namespaces = {}
    for line in sys.stdin:
        request = json.loads(line)
        notebook = request["notebook"]
        if notebook not in namespaces:
            namespaces[notebook] = judge.solution_namespace(notebook)
        namespace = namespaces[notebook]
        name = request["answer"]
        answer = next((namespace[k] for k in (name, name.upper(), f"{name}_output") if k in namespace), None)
        case = judge.load_cases(request["request"])[0]
        if answer is None:
            outcome = ("not started", f"{name} is not answered yet")
        else:
            outcome = judge.outcome_of(answer, case)
        if outcome[0] == "value":
            outcome = ("value", judge.plain(outcome[1]))
        judge.save_cases(request["reply"], [{"outcome": outcome}])
        replies.write("done\n")


if __name__ == "__main__":
    main()
