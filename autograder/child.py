"""The process a student's code runs in: `python -I child.py JUDGE WORKDIR SECONDS`.

It loads the judge package, whole, from the folder JUDGE (a copy of the
trusted autograder/judge/ the parent made before any student code ran), runs
the answer cells of the notebooks in WORKDIR, and serves requests from the
parent, one `judge.to_line` line each on stdin: ``{"notebook", "answer",
"seconds", "stand_ins", "args", "kwargs", "nonce"}``, the case's inputs (never its
expected value) and a token fresh for the request. The reply is one line on stdout:
``{"outcome", "nonce"}``, the call's
`Outcome` as plain data (`judge.outcome_to_wire`), which the parent reads as
untrusted (`judge.from_line`: no pickles, numbers and booleans only). While
the answer runs, each exercise named in "stand_ins" (those it is built on,
judge.BUILT_ON) is a stand-in that asks the parent for the reference's value:
a ``{"call", "args", "kwargs", "nonce"}`` line on stdout, answered by one line on stdin
(``{"value"}`` or ``{"error"}``). The reference never enters this process. No
file is shared, so nothing the student plants in the scratch folder can
redirect the parent. Nothing here decides a grade. Whatever the student's
code prints goes to /dev/null.
"""

import builtins
import importlib.util
import os
import sys


def _answer(namespace, name):
    return next((namespace[k] for k in (name, name.upper(), f"{name}_output") if k in namespace), None)


def _stand_in(judge, replies, name: str, under: str, nonce):
    """A function that asks the parent for the reference's `name` (see the module docstring)."""
    def reference(*args, **kwargs):
        try:
            message = judge.to_line({"call": name, "args": list(args), "kwargs": kwargs, "nonce": nonce})
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name} (the reference's, standing in for yours while {under} is graded) "
                            f"cannot take this input: {e}") from None
        replies.write(message + "\n")
        reply = judge.from_line(sys.stdin.readline())
        if "error" in reply:
            kind, text = reply["error"]
            error = getattr(builtins, kind, None)
            raise (error if isinstance(error, type) and issubclass(error, Exception) else RuntimeError)(text)
        return reply["value"]
    reference.__name__ = reference.__qualname__ = name
    return reference


def main():
    judge_folder, workdir, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    spec = importlib.util.spec_from_file_location("_grading_judge", os.path.join(judge_folder, "__init__.py"),
                                                  submodule_search_locations=[judge_folder])
    judge = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = judge  # its modules import each other relatively
    spec.loader.exec_module(judge)
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    loaded = {}  # notebook → [namespace, its answer cells, the next cell to run]
    for line in sys.stdin:
        request = judge.from_line(line)
        if "answer" not in request:  # a stand-in's reply that came after its call timed out
            continue
        notebook, name = request["notebook"], request["answer"]
        if notebook not in loaded:
            loaded[notebook] = [judge.fresh_namespace(), judge.answer_cells(notebook), 0]
        namespace, cells, next_cell = loaded[notebook]
        # Run the notebook's cells only as far as the answer asked for.
        loaded[notebook][2] = judge.run_cells(cells, namespace, next_cell, seconds,
                                              until=lambda ns: _answer(ns, name) is not None, where=notebook)
        answer = _answer(namespace, name)
        case = {"args": request["args"], "kwargs": request["kwargs"]}
        if answer is None:
            errors = [e for e in namespace["__cell_errors__"] if e.startswith(name)]
            outcome = judge.Outcome.unstarted(errors[0] if errors else f"{name} is not answered yet")
        else:
            stand_ins = {dep: _stand_in(judge, replies, dep, name, request.get("nonce"))
                         for dep in request.get("stand_ins", ())}
            with judge.time_limit(request.get("seconds", seconds)), \
                    judge.standing_in(name, answer, stand_ins.__getitem__ if stand_ins else None):
                outcome = judge.outcome_of(answer, case)
        replies.write(judge.to_line({"outcome": judge.outcome_to_wire(outcome), "nonce": request.get("nonce")}) + "\n")


if __name__ == "__main__":
    main()
