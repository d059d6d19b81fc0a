"""The process a student's code runs in: `python -I child.py JUDGE PREPARED WORKDIR SECONDS CONFINEMENT MEASURED`.

Before any student code runs it copies the folder PREPARED (the notebooks
restored for grading, the release's support files) into WORKDIR, its own,
loads the judge package, whole, from the folder JUDGE (a copy of the trusted
autograder/judge/ the parent made), loads its lock (seccomp.py, beside this
file: no new program, process or namespace; required unless CONFINEMENT is
"unconfined"), imports the installed libraries the notebooks' cells import
(`_import_libraries`: their code is no answer's memory), and says so in one message, ``{"ready": true}``: the mark from
which the grader counts its memory (MEASURED names the one notebook this child
serves; "-": it serves them all, and measures a notebook's cases while it has
run no other notebook's code: autograder/submission.py); the NumPy code a first
call touches is made resident before that mark (`_warm_up`). Then it runs the
answer cells of the notebooks in WORKDIR, and serves requests from the
parent, one `judge.frame_of` frame each on stdin: ``{"notebook", "answer",
"stand_ins", "cases", "nonce"}``, one answer's cases to run in turn (each
``{"args", "kwargs", "seconds"}``: its inputs, never its expected value) and a
token fresh for the request; each case's inputs are let go before its reply is
written. Each case's reply is one frame on stdout, written as the case ends:
``{"outcome", "nonce", "case"}``, the call's `Outcome` as plain data
(`judge.outcome_to_wire`) and the case's place in the request, which the
parent reads as untrusted (`judge.from_frame`: no pickles, numbers and booleans
only). While
the answer runs, each exercise named in "stand_ins" (those it is built on,
judge.BUILT_ON) is a stand-in that asks the parent for the reference's value:
a ``{"call", "args", "kwargs", "nonce"}`` frame on stdout, answered by one frame on stdin
(``{"value"}`` or ``{"error"}``). The reference never enters this process. No
file is shared, so nothing the student plants in the scratch folder can
redirect the parent. ``{"tidy": true}`` asks the child to give back what
freed objects and cycles still take (`gc`, `_memory_trimmer`), answered by the
same message, before the grader counts what it holds for a measured case.
Nothing here decides a grade. Whatever the student's
code prints goes to /dev/null, and it reads its standard input from there: the
requests come on a copy of the pipe, so a stray `input()` or `sys.stdin.read()`
meets the end of its input at once (input() says why, as do breakpoint() and
pdb.set_trace()) instead of waiting out its time on the grader's pipe.

One job, kept whole past 250 lines: the process a student's code runs in is one file, run by path with
nothing of the kit importable (it loads only the judge and its lock), so its set-up cannot live apart from it.
"""

import ast
import builtins
import ctypes
import difflib
import gc
import importlib.util
import os
import shutil
import sys
import time

# What the notebooks' set-up cells import, loaded before the memory mark: the standard library's, before the
# work folder (which holds the student's own modules, student_modules.py) is on the import path, then the
# release's own (support files restored from source/, never the student's copies).
STANDARD_MODULES = ("math", "time", "tracemalloc")
RELEASE_MODULES = ("judge", "workbook")
LIBRARY_SECONDS = 10  # the most the child spends importing the libraries the notebooks import (CPU seconds)


def _warm_up(np) -> None:
    """Use, once, the NumPy code an answer's first call would touch: its pages (NumPy's, OpenBLAS's) become
    resident now, before the memory mark, so a measured call counts what the student's code holds."""
    for x in (np.random.default_rng(0).standard_normal((64, 64)), np.ones((64, 64), dtype=np.float32)):
        np.einsum("ij,jk->ik", x @ x.T, x)
        np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1)
        np.linalg.matrix_rank(x), np.linalg.norm(x), np.sqrt(np.abs(x)), np.log(np.abs(x) + 1)
        np.where(x > 0, x, -np.inf), np.tril(x), np.triu(x), np.argsort(x), np.isclose(x, x)
        np.broadcast_to(x, (2, 64, 64)).copy(), np.swapaxes(x[None], -1, -2)


def _imported(notebooks) -> list[str]:
    """The modules the notebooks' cells that run (notebooks: answer_cells' lists) import, anywhere in them, by
    absolute name, in order: what a notebook's load (or `my`, loading another's) or its answer's call imports."""
    names = []
    for cells in notebooks:
        for _, source in cells:
            if "import" not in source:  # no import statement, and no cost of parsing (a child's start)
                continue
            try:
                nodes = list(ast.walk(ast.parse(source)))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            for node in nodes:
                if isinstance(node, ast.Import):
                    names += [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.append(node.module)
    return list(dict.fromkeys(names))


def _import_libraries(names, workdir: str, time_limit) -> None:
    """Import, before the memory mark, the installed libraries among `names` (matplotlib, scipy, ...): what their
    code and data take is no answer's memory, as in JupyterLab, where the visible checks count what a call
    allocates (tracemalloc). Never one the work folder holds a file or folder for (the student's own modules,
    the release's, or one that would shadow an installed library, as it does in JupyterLab); a failed import
    fails again, and is reported, where the student's cell makes it, as does one past LIBRARY_SECONDS in all
    (`time_limit`: the judge's). Whatever an import reads or prints meets /dev/null, not the grader's pipes."""
    saved = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    end = time.process_time() + LIBRARY_SECONDS  # also where an import caught the time limit's error itself
    try:
        with time_limit(LIBRARY_SECONDS):
            for name in names:
                top = name.partition(".")[0]
                if time.process_time() > end:
                    break
                if not any(os.path.lexists(os.path.join(workdir, found)) for found in (top, top + ".py")):
                    try:
                        importlib.import_module(name)
                    except TimeoutError:
                        break
                    except BaseException:  # noqa: BLE001 (any library's failure: the student's cell meets it later)
                        pass
    except TimeoutError:  # past the limit between two imports
        pass
    finally:
        sys.stdout.flush()
        for fd, copy in zip((0, 1), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)


def _memory_trimmer():
    """glibc's malloc_trim (None elsewhere): it gives back to the system what freed objects leave in the heap."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def _answer(namespace, name):
    return next((namespace[k] for k in (name, name.upper(), f"{name}_output") if k in namespace), None)


def _undefined(judge, cells, name: str) -> str:
    """Why `name` is not there though its cell ran without an error, in the student's terms: the name their
    answer's cell or a cell of their own binds instead, if one is close to it (a typo, a renamed stub:
    `soft_max`, `Softmax`), else that the cell ran without binding it. cells: run_cells' (grade_id, source)."""
    bound = {key.lower(): key for grade_id, source in cells if grade_id == name or grade_id.startswith("your cell")
             for key in judge.bound_names(source) if key != name}
    close = difflib.get_close_matches(name.lower(), bound, n=1, cutoff=0.75)
    instead = f"your notebook defines {bound[close[0]]} instead" if close else "its cell ran without defining it"
    return f"{name} is not defined: {instead}; the grader calls it by the name the stub gave it, {name}"


def _helpers_of_their_own(judge, notebook: str, cells) -> frozenset[str]:
    """Names the student's own code binds (their own cells, an answer's cell beside its answer) that are no exercise
    of this notebook and that no set-up cell gives: a helper that shares an exercise's name (`raw_scores` in the
    notebook of softmax, scaled inside) is theirs to call, never stood in for by that exercise's reference."""
    if notebook not in _OWN_HELPERS:
        exercises = {grade_id for grade_id, _ in cells if not grade_id.startswith(("your cell", "setup_"))}
        given = {bound for grade_id, source in cells if grade_id.startswith("setup_")
                 for bound in judge.bound_names(source)}
        theirs = {bound for grade_id, source in cells if not grade_id.startswith("setup_")
                  for bound in judge.bound_names(source) if bound != grade_id}
        _OWN_HELPERS[notebook] = frozenset(theirs - exercises - given)
    return _OWN_HELPERS[notebook]


_OWN_HELPERS: dict[str, frozenset[str]] = {}  # notebook → _helpers_of_their_own


def _left_out_note(judge, notebook: str, cells, answer, namespace: dict) -> str:
    """judge.left_out_note, or '' where the notebook has no cell of the student's own (as most have not) or it or
    the answer's code cannot be read (the student's code may have changed either); under the time limit, as the
    answer's own code ran (a notebook of millions of cells). The notebook's left-out statements read once."""
    if not any(grade_id.startswith("your cell") for grade_id, _ in cells):
        return ""
    try:
        with judge.time_limit(LIBRARY_SECONDS):
            if notebook not in _LEFT_OUT:
                _LEFT_OUT[notebook] = []  # unreadable: no note, and not read again
                _LEFT_OUT[notebook] = judge.left_out_statements(notebook)
            return judge.left_out_note(_LEFT_OUT[notebook], answer, namespace)
    except Exception:  # a note is advice: never a reason to lose the outcome
        return ""


_LEFT_OUT: dict[str, list] = {}  # notebook → its left-out statements (left_out_statements)


def _stand_in(judge, pipes, name: str, under: str, nonce):
    """A function that asks the parent for the reference's `name` (see the module docstring)."""
    def reference(*args, **kwargs):
        try:
            message = judge.frame_of({"call": name, "args": list(args), "kwargs": kwargs, "nonce": nonce})
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name} (the reference's, standing in for yours while {under} is graded) "
                            f"cannot take this input: {e}") from None
        requests, replies = pipes
        _send(replies, message)
        reply = judge.read_message(requests)
        if "error" in reply:
            kind, text = reply["error"]
            error = getattr(builtins, kind, None)
            raise (error if isinstance(error, type) and issubclass(error, Exception) else RuntimeError)(text)
        return reply["value"]
    reference.__name__ = reference.__qualname__ = name
    return reference


def _no_input(prompt=""):
    """input() while grading, which no one answers (Jupyter's kernel refuses it in nbgrader's autograde too)."""
    raise EOFError("input() waits for someone to type, and no one types while the grader runs your code: "
                   "take the call out of your answer")


DEBUGGER = ("the debugger waits for someone to type, and no one types while the grader runs your code: take "
            "breakpoint() or pdb.set_trace() out of your answer")


def _no_debugger(*args, **kwargs):
    """breakpoint() while grading (sys.breakpointhook), which would open a debugger no one answers."""
    raise RuntimeError(f"breakpoint(): {DEBUGGER}")


def _send(replies, frame: bytes) -> None:
    """Write one frame to the parent and flush it."""
    replies.write(frame)
    replies.flush()


def _module(name: str, path: str, package: bool = False):
    """The module `name` loaded from the file or package folder at `path` (not from sys.path)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(path, "__init__.py") if package else path,
                                                  submodule_search_locations=[path] if package else None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a package's modules import each other relatively
    spec.loader.exec_module(module)
    return module


def main():
    judge_folder, prepared, workdir, seconds, confinement, measured = sys.argv[1:7]
    seconds = float(seconds)
    for entry in os.scandir(prepared):  # into the work folder as it is (a tmpfs whose modes are not the child's)
        (shutil.copytree if entry.is_dir() else shutil.copyfile)(entry.path, os.path.join(workdir, entry.name))
    judge = _module("_grading_judge", judge_folder, package=True)
    try:
        _module("_grading_lock", os.path.join(os.path.dirname(os.path.abspath(__file__)), "seccomp.py"))\
            .forbid_new_processes()
    except OSError:
        if confinement != "unconfined":
            raise
    for module in STANDARD_MODULES:
        importlib.import_module(module)
    os.chdir(workdir)
    # Each notebook's cells read now, before the memory mark, as data; they run only when asked for.
    cells = {name: judge.answer_cells(name) for name in os.listdir(workdir) if name.endswith(".ipynb")}
    _import_libraries(_imported(cells.values()), workdir, judge.time_limit)
    sys.path.insert(0, workdir)  # imports may now find the student's modules: by now everything the child runs
    # is imported, and it imports only the release's own before its memory mark
    for module in RELEASE_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    served = [measured] if measured != "-" else list(cells)
    loaded = {name: [judge.fresh_namespace(), cells.get(name, []), 0] for name in served}
    _warm_up(sys.modules["numpy"])  # any child may measure a case (a measured notebook's first)
    trim = _memory_trimmer()
    requests, replies = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    _send(replies, judge.frame_of({"ready": True}))
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        devnull = os.open(os.devnull, mode)
        os.dup2(devnull, fd)
        os.close(devnull)
    builtins.input, sys.breakpointhook = _no_input, _no_debugger
    while (request := judge.read_message(requests)) is not None:
        if "tidy" in request:
            gc.collect()
            if trim is not None:
                trim(0)
            _send(replies, judge.frame_of({"tidy": True}))
        elif "answer" in request:  # else a stand-in's reply that came after its call timed out
            cases = request.pop("cases")
            _serve(judge, request, cases, loaded, seconds, (requests, replies))
            del request, cases


def _serve(judge, request, cases, loaded, seconds, pipes) -> None:
    """Run the answer `request` names on each of `cases` in turn, writing each one's reply frame as it is
    done; a case's inputs let go before its reply is written (and the grader counts what the child holds)."""
    notebook, name, nonce = request["notebook"], request["answer"], request.get("nonce")
    if notebook not in loaded:  # no such notebook: its cells, none
        loaded[notebook] = [judge.fresh_namespace(), [], 0]
    namespace, cells, next_cell = loaded[notebook]
    # Run the notebook's cells only as far as the answer asked for.
    loaded[notebook][2] = judge.run_cells(cells, namespace, next_cell, seconds,
                                          until=lambda ns: _answer(ns, name) is not None, where=notebook)
    answer = _answer(namespace, name)
    if answer is None:  # every case's outcome alike
        errors = [e for e in namespace["__cell_errors__"] if e.startswith(f"{name}: ")]
        failed = errors[0].split(": ", 1)[1] if errors else ""  # "<error type>: <message>" of its cell
        stub = not errors or failed.split(": ", 1)[0] in ("NotStarted", "NotImplementedError")  # a stub's cell
        if failed.startswith("BdbQuit:"):  # pdb.set_trace() in the cell itself: as in an answer, below
            failed = f"BdbQuit: pdb.set_trace(): {DEBUGGER}"
        no_answer = judge.Outcome.unstarted(errors[0] if errors else _undefined(judge, cells, name)) if stub else \
            judge.Outcome.cell_failed(name, failed)
    theirs = _helpers_of_their_own(judge, notebook, cells)
    stand_ins = {dep: _stand_in(judge, pipes, dep, name, nonce) for dep in request.get("stand_ins", ())
                 if dep not in theirs}
    note = None  # what of the student's own cells grading left out that the answer needed, once it ran
    for index in range(len(cases)):
        case, cases[index] = cases[index], None
        if answer is None:
            outcome = no_answer
        else:
            with judge.time_limit(case.get("seconds", seconds)), \
                    judge.standing_in(name, answer, stand_ins.__getitem__ if stand_ins else None, keep=theirs):
                outcome = judge.outcome_of(answer, {"args": case["args"], "kwargs": case["kwargs"]})
            if outcome.error == "BdbQuit":  # pdb.set_trace(): its debugger read the end of its input at once
                outcome = judge.Outcome.raising("BdbQuit", f"pdb.set_trace(): {DEBUGGER}{outcome.message}")
            if not outcome.timed_out:  # a raised outcome or a value that may fail its case
                note = _left_out_note(judge, notebook, cells, answer, namespace) if note is None else note
                outcome = outcome.noted(note)
        del case
        _send(pipes[1], judge.frame_of({"outcome": judge.outcome_to_wire(outcome), "nonce": nonce, "case": index}))
        if outcome.timed_out:  # an answer that ran past its time once is not called again (the grader's rule)
            return
        del outcome


if __name__ == "__main__":
    main()
