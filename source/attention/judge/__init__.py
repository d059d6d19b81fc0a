"""The judge: one comparison policy for every check in the kit, visible or hidden.

This folder is copied unchanged into the student release (as ``judge/``,
imported there as ``judge``; here as ``autograder.judge``), so it holds no
reference code and no hidden values: it only compares an answer with an
expected value that it is given. One job per file:

- policy.py      comparing a value with the expected one (type, shape, dtype,
                 finiteness, closeness);
- naming.py      naming the known mistake an answer makes, from every case it ran on;
- verdicts.py    an outcome against a case (not started, bad input, a
                 "Check yourself" answer's form, memory), and a check's
                 cases one after another (`Checking`: the mistake they agree on);
- calling.py     calling an answer on fresh inputs, under a time limit;
- outcome.py     what a call gave (`Outcome`); case.py, the keys of a case (`Case`);
- stand_ins.py   the reference standing in for what an answer is built on
                 (BUILT_ON, from the generated built_on.json);
- cells.py       extracting and running a notebook's answer cells;
- left_out.py    naming what of a student's own cells grading left out, where an answer needed it;
- wire.py        the codec: cases and messages as JSON plus arrays' bytes, never pickles;
- frames.py      one message between the grader and its grading child, as a frame;
- checks.py      the visible checks run in the student's notebook;
- exceptions.py  NotStarted (a stub) and CheckFailed (a check).
"""

from .calling import WALL_FACTOR, call, outcome_of, time_limit
from .case import Case
from .cells import answer_cells, bound_names, fresh_namespace, run_cells, solution_namespace
from .checks import VISIBLE_CASES, check, check_answer_form
from .exceptions import CheckFailed, NotStarted
from .left_out import left_out_note, left_out_statements
from .outcome import Outcome
from .policy import KINDS, Verdict, differs, tolerance
from .stand_ins import BUILT_ON, standing_in
from .verdicts import FULL_GRID, Checking, case_label, check_verdict, check_verdicts, diagnose, labelled, verdict
from .frames import frame_of, from_frame, read_message
from .wire import Seed, fresh_inputs, load_cases, outcome_from_wire, outcome_to_wire, plain, save_cases

__all__ = [
    # the notebooks' checks
    "NotStarted", "CheckFailed", "check", "check_answer_form", "VISIBLE_CASES",
    # the comparison policy and its verdicts
    "tolerance", "differs", "verdict", "diagnose", "Verdict", "KINDS", "FULL_GRID",
    # a check's cases, one after another, naming a mistake only when they agree
    "Checking", "check_verdict", "check_verdicts", "case_label", "labelled",
    # calling an answer
    "Outcome", "call", "outcome_of", "time_limit", "WALL_FACTOR",
    # one exercise at a time
    "BUILT_ON", "standing_in",
    # a notebook's answers
    "answer_cells", "bound_names", "fresh_namespace", "run_cells", "solution_namespace", "left_out_note",
    "left_out_statements",
    # cases and the wire
    "Case", "Seed", "fresh_inputs", "save_cases", "load_cases", "frame_of", "from_frame", "read_message",
    "plain", "outcome_to_wire", "outcome_from_wire",
]
