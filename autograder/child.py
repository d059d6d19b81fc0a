"""The process a student's code runs in: `python -I child.py JUDGE WORKDIR SECONDS`.

It loads the comparison module from JUDGE (a copy of the trusted judge.py the
parent made before any student code ran), runs the answer cells of the
notebooks in WORKDIR, and serves requests from the parent, one per line on
stdin: ``{"notebook", "answer", "request", "reply"}``. The request file holds
only inputs; the reply holds only plain data (`judge.plain`), which the parent
reads with ``allow_pickle=False``. Nothing here decides a grade. Whatever the
student's code prints goes to /dev/null.
"""

import importlib.util
import json
import os
import sys


def main():
    judge_path, workdir, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    spec = importlib.util.spec_from_file_location("_grading_judge", judge_path)
    judge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(judge)
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    namespaces = {}
    for line in sys.stdin:
        request = json.loads(line)
        notebook, name = request["notebook"], request["answer"]
        if notebook not in namespaces:
            namespaces[notebook] = judge.solution_namespace(notebook, seconds_per_cell=seconds)
        namespace = namespaces[notebook]
        answer = next((namespace[k] for k in (name, name.upper(), f"{name}_output") if k in namespace), None)
        case = judge.load_cases(request["request"])[0]
        if answer is None:
            errors = [e for e in namespace["__cell_errors__"] if e.startswith(name)]
            outcome = ("not started", errors[0] if errors else f"{name} is not answered yet")
        else:
            with judge.time_limit(request.get("seconds", seconds)):
                outcome = judge.outcome_of(answer, case)
        if outcome[0] == "value":
            outcome = ("value", judge.plain(outcome[1]), *outcome[2:])
        judge.save_cases(request["reply"], [{"outcome": outcome}])
        replies.write("done\n")


if __name__ == "__main__":
    main()
