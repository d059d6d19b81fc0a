"""Do the hidden cases check every behaviour the specification and the notebooks' text give a function?

Every exercise declares the behaviours its text states (`Requirement`s in its
registry entry, autograder/exercises/), each with the text's own words and a
wrong answer that breaks it. Read against the notebooks (tests/judge/exercise_text.py):
every sentence of an exercise's part of the text that states a behaviour is one
of its requirements, and each requirement is in the text; some hidden case fails
each requirement's wrong answer, and so does a visible case (the check under the
exercise is as strong as its text) unless the requirement says why none can.
`requirement_map` is the map from the text to the cases. The other direction: every
hidden case that must raise or checks an edge is claimed by a requirement or by
a general rule of notebook 01 (`unclaimed`). The solution cells' docstrings,
which the stubs keep, are read the same way (`docstring_behaviours`): each
statement that states a behaviour holds a requirement's words or states a
general rule that holds for the exercise (`DOCSTRING_RULES`), and the cases fit
the shapes a docstring gives (tests/judge/stated_shapes.py).

The generic behaviours:

The foundation issue specifies, for the functions of the chapter: float32 in
gives float32 out, any leading batch dimensions, cross-attention shapes, a row
whose every key is forbidden, scores of ±1e4, and a ValueError for bad shapes
and sizes (`autograder.cases.BEHAVIOURS`). Each exercise's `meets` says which of them it
can meet; every one must be checked by at least one hidden case of
that exercise, tagged in its `checks` (its case specs in autograder/exercises/). Each tag is also
checked against the case itself, so a tag cannot claim what its case does not do.
"""

from __future__ import annotations

import re
import warnings
from functools import cache

import numpy as np
import pytest

from autograder.cases import BEHAVIOURS, EXERCISES, REGISTRY, hidden_cases, visible_cases, visible_cases_of
from autograder.exercises.spec import no_cases
from autograder.judge import fresh_inputs, outcome_of, verdict
from tests.judge.exercise_text import (STATES_A_BEHAVIOUR, behaviour_sentences, docstring, exercise_text, flat, introduction,
                                 notebook_text, parameters, statements)
from tests.judge.stated_shapes import arguments_of, misfit, stated

# Exercise → the behaviours it can meet, as its registry entry declares them (Exercise.meets).
SPECIFIED: dict[str, set[str]] = {name: set(e.meets) for name, e in REGISTRY.items() if e.meets}


def behaviour_map() -> dict[str, dict[str, list[str]]]:
    """Exercise → behaviour → the labels of the hidden cases that check it."""
    found: dict[str, dict[str, list[str]]] = {}
    for exercise in SPECIFIED:
        for case in hidden_cases(exercise):
            for tag in case.get("checks", ()):
                found.setdefault(exercise, {}).setdefault(tag, []).append(case["label"])
    return found


def _arrays(case: dict) -> list[np.ndarray]:
    args, kwargs = fresh_inputs(case)
    return [np.asarray(a) for a in [*args, *kwargs.values()] if isinstance(a, (np.ndarray, np.generic))]


def _holds(tag: str, case: dict) -> bool:
    """Does the case do what its tag claims (where that can be read from the case)?"""
    if tag in ("bad shape", "bad size"):
        return case.get("raises") == "ValueError"
    if case.get("raises"):
        return False
    if tag == "float32":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return any(a.dtype == np.float32 for a in _arrays(case)) and all(o.dtype == np.float32 for o in outputs)
    if tag == "masked row":
        return any(a.ndim >= 2 and np.isneginf(a).all(axis=-1).any() for a in _arrays(case))
    if tag == "1e4":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return all(np.isfinite(o).all() for o in outputs) and _largest_score(case) >= 5e3
    if tag == "integers":
        outputs = case["expected"] if isinstance(case["expected"], tuple) else (case["expected"],)
        return any(a.dtype.kind in "iu" for a in _arrays(case)) and \
            all(np.asarray(o).dtype == np.float64 for o in outputs if np.asarray(o).dtype.kind == "f")
    if tag == "batched":
        return max(a.ndim for a in _arrays(case)) >= 3
    if tag == "cross":
        return len({a.shape[-2] for a in _arrays(case) if a.ndim >= 2}) >= 2
    raise AssertionError(f"no way to read {tag!r} from a case")


def _largest_score(case: dict) -> float:
    """The largest scaled score |q·k| / √d_k the case's inputs make (for softmax, its scores)."""
    from solutions import attention as ref
    args, kwargs = fresh_inputs(case)
    if case["func"] in ("softmax", "softmax_jacobian"):
        return float(np.abs(args[0][np.isfinite(args[0])]).max())
    if case["func"] == "multi_head_attention":
        X, W_q, W_k, _, _, n_heads = args[:6]
        Q, K = ref.split_heads(X @ W_q, n_heads), ref.split_heads(kwargs.get("context", X) @ W_k, n_heads)
    else:
        Q, K = args[0], args[1]
    return float(np.abs(ref.scaled_scores(Q, K)).max())


def test_every_specified_behaviour_is_a_known_one():
    assert set().union(*SPECIFIED.values()) <= set(BEHAVIOURS)
    assert set(SPECIFIED) <= set(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(SPECIFIED))
def test_every_behaviour_an_exercise_can_meet_is_checked_by_a_hidden_case(exercise):
    checked = behaviour_map().get(exercise, {})
    missing = SPECIFIED[exercise] - set(checked)
    assert not missing, f"no hidden case of {exercise} checks {sorted(missing)}"


@pytest.mark.parametrize("exercise", sorted(SPECIFIED))
def test_a_case_does_what_its_checks_say(exercise):
    wrong = [(case["label"], tag) for case in hidden_cases(exercise) for tag in case.get("checks", ())
             if not _holds(tag, case)]
    assert not wrong


# Notebook 01's introduction states the comparison policy, which the judge applies to every case (tests/judge/test_judge.py).
POLICY_NOTEBOOK = "01_worked_example"
NOTEBOOKS = sorted({e.notebook for e in REGISTRY.values()})


def _breaker(exercise, requirement):
    """The answer that breaks `requirement`: its own, or the catalogued mistake it names."""
    if isinstance(requirement.broken_by, str) and callable(exercise.reference):
        variants = {m.name: m.variant for m in exercise.mistakes}
        if requirement.broken_by not in variants:
            raise AssertionError(f"{exercise.name}: no catalogued mistake {requirement.broken_by!r}")
        return variants[requirement.broken_by]
    return requirement.broken_by


def failed_by(answer, cases) -> list[str]:
    """The labels of the cases `answer` fails."""
    with np.errstate(all="ignore"):
        return [case["label"] for case in cases if verdict(case["label"], outcome_of(answer, case), case)]


def failing_cases(exercise, requirement, cases) -> list[str]:
    """The labels of the cases that fail the requirement's wrong answer."""
    return failed_by(_breaker(exercise, requirement), cases)


@cache
def hidden_failing(exercise: str, index: int) -> tuple[str, ...]:
    """The labels of the hidden cases that fail the wrong answer of `exercise`'s requirement number `index`
    (computed once per process: several tests ask, and some breakers build n × n grids of 4,096 tokens)."""
    e = REGISTRY[exercise]
    return tuple(failing_cases(e, e.requirements[index], hidden_cases(exercise)))


def requirement_map() -> dict[str, dict[str, list[str]]]:
    """Exercise → the words of each requirement → the hidden cases that check it."""
    return {name: {r.says: list(hidden_failing(name, i)) for i, r in enumerate(e.requirements)}
            for name, e in REGISTRY.items()}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_requirement_is_in_its_notebooks_text(exercise):
    e = REGISTRY[exercise]
    assert not [r.says for r in e.requirements if flat(r.says) not in notebook_text(e.notebook)]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_sentence_of_an_exercise_that_states_a_behaviour_is_a_requirement(exercise):
    e = REGISTRY[exercise]
    said = [flat(r.says) for r in e.requirements]
    unclaimed = [s for s in behaviour_sentences(exercise_text(e.notebook, exercise)) if not any(w in s for w in said)]
    assert not unclaimed, f"{exercise}: sentences that state a behaviour but are no Requirement: {unclaimed}"


@pytest.mark.parametrize("notebook", [n for n in NOTEBOOKS if n != POLICY_NOTEBOOK])
def test_every_rule_a_notebooks_introduction_states_is_a_requirement_of_its_exercises(notebook):
    said = [flat(r.says) for e in REGISTRY.values() if e.notebook == notebook for r in e.requirements]
    unclaimed = [s for s in behaviour_sentences(introduction(notebook)) if not any(w in s for w in said)]
    assert not unclaimed, f"{notebook}: rules of its introduction no exercise declares: {unclaimed}"


@pytest.mark.parametrize("exercise", EXERCISES)
def test_some_hidden_case_fails_the_answer_that_breaks_each_requirement(exercise):
    e = REGISTRY[exercise]
    unchecked = [r.says for i, r in enumerate(e.requirements) if not hidden_failing(exercise, i)]
    assert not unchecked, f"{exercise}: no hidden case checks {unchecked}"


# An exercise with a visible check: its own check cell, or visible cases checked in its graded cell (equal_scores).
@pytest.mark.parametrize("exercise", [name for name, e in REGISTRY.items()
                                      if e.points.check is not None or e.visible is not no_cases])
def test_the_visible_check_fails_the_answer_that_breaks_each_requirement_it_can_see(exercise):
    e = REGISTRY[exercise]
    visible = [c for c in visible_cases() if c["func"] == exercise]
    unchecked = [r.says for r in e.requirements if not r.unseen and not failing_cases(e, r, visible)]
    assert not unchecked, f"{exercise}: the visible check passes an answer that breaks {unchecked}"


# The other direction: every hidden case's rule is stated, in its exercise's text (a Requirement whose wrong
# answer the case fails) or in notebook 01's general rules. A case that checks the main computation on other
# shapes ("cross", "batched") needs neither; one that must raise, or checks an edge, does. A case whose tag is a
# general rule's is claimed by it (`_holds` checks the tag against the case); one that must raise because its
# arrays do not fit the shapes the docstring gives is claimed by the rule on shapes (tests/judge/stated_shapes.py).
GENERAL_RULES = {"bad size": "A **count or size you are given**", "float32": "float32 in gives float32 out",
                 "integers": "**Integers** given where numbers are computed",
                 "1e4": "scores as large as ±1e4 must give finite weights",
                 "bad shape": "Arrays whose shapes do not fit the ones an exercise gives"}


def test_the_general_rules_hidden_cases_rely_on_are_stated_in_notebook_01():
    assert all(flat(words) in notebook_text(POLICY_NOTEBOOK) for words in GENERAL_RULES.values())
    assert all(flat(words) in notebook_text(POLICY_NOTEBOOK) for words, _, _ in DOCSTRING_RULES.values())


def _misfits(exercise: str, case: dict) -> str:
    """Why a case's inputs do not fit the shapes its exercise's docstring gives ("" when they fit)."""
    e = REGISTRY[exercise]
    return misfit(e.notebook, exercise, arguments_of(e.notebook, exercise, case))


# The exercises the rule on shapes leaves out, as notebook 01 says: notebook 09's, but `prefix_gaps`.
SHAPES_UNCHECKED = {"self_score", "previous_score", "start_score", "induction_score", "classify_head", "copy_score",
                    "ablate_head"}


def test_the_exercises_the_rule_on_shapes_leaves_out_are_those_notebook_01_names():
    assert "in notebook 09, which reads the trained model's own arrays, only `prefix_gaps` checks them" \
        in notebook_text(POLICY_NOTEBOOK)
    assert SHAPES_UNCHECKED == {name for name, e in REGISTRY.items()
                                if e.notebook == "09_model_explorer" and callable(e.reference)} - {"prefix_gaps"}


def _reshaped(exercise: str) -> list[tuple[str, dict]]:
    """The first hidden case that raises nothing, each array the docstring gives a shape changed in turn (one
    dimension fewer, one more, a column more, a row more), where that no longer fits: (what changed, inputs)."""
    e = REGISTRY[exercise]
    good = next(c for c in hidden_cases(exercise) if not c.get("raises"))
    changes = {"one dimension fewer": lambda a: a[0], "one dimension more": lambda a: a[None],
               "a column more": lambda a: np.concatenate([a, a[..., :1]], axis=-1),
               "a row more": lambda a: np.concatenate([a, a[..., :1, :]], axis=-2)}
    found = []
    for given in stated(e.notebook, exercise).arguments:
        for how, change in changes.items():
            inputs = arguments_of(e.notebook, exercise, good)
            if np.ndim(inputs.get(given.name)) < (2 if how == "a row more" else 1):
                continue
            inputs[given.name] = change(np.asarray(inputs[given.name]))
            if misfit(e.notebook, exercise, inputs):
                found.append((f"{given.name} with {how}", inputs))
    return found


@pytest.mark.parametrize("exercise", [name for name, e in REGISTRY.items() if callable(e.reference)
                                      and stated(e.notebook, name).arguments])
def test_the_reference_keeps_the_rule_on_shapes(exercise):
    """Arrays that do not fit the docstring's shapes make the reference raise a ValueError, as notebook 01's rule
    says; in the exercises it leaves out, some do not (else they would not need leaving out)."""
    e, params, accepted = REGISTRY[exercise], parameters(REGISTRY[exercise].notebook, exercise), []
    for how, inputs in _reshaped(exercise):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e.reference(*[inputs[p] for p in params if p in inputs])
            accepted.append(how)
        except ValueError:
            pass
        except Exception as error:  # noqa: BLE001 (another error breaks the rule too)
            accepted.append(f"{how}: {type(error).__name__}")
    assert bool(accepted) == (exercise in SHAPES_UNCHECKED), accepted


def unclaimed(exercise: str) -> set[str]:
    """The labels of `exercise`'s hidden cases that must raise or check an edge, and whose rule is stated nowhere."""
    e, cases = REGISTRY[exercise], hidden_cases(exercise)
    claimed = {label for i in range(len(e.requirements)) for label in hidden_failing(exercise, i)}
    tags = set(GENERAL_RULES) - {"bad shape"}
    return {c["label"] for c in cases if (c.get("raises") or set(c.get("checks", ())) - {"cross", "batched"})
            and c["label"] not in claimed and not set(c.get("checks", ())) & tags
            and not (c.get("raises") and callable(e.reference) and exercise not in SHAPES_UNCHECKED
                     and _misfits(exercise, c))}


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_hidden_case_checks_a_rule_its_text_or_notebook_01_states(exercise):
    assert unclaimed(exercise) == set()


# The docstrings. The stub the student writes in keeps its function's docstring, so each of its statements that
# states a behaviour (`docstring_behaviours`) is claimed as a sentence of the text is: it
# holds a requirement's words (its `says`, or its `docstring`, the docstring's words for it), whose wrong answer
# some hidden case fails; or it states one of notebook 01's general rules, and the rule holds for the exercise:
# a wrong answer made from the reference that breaks only that rule fails some hidden case, or (shapes, large
# scores) the cases show it. A shape is a behaviour: the judge compares shapes exactly on every case, and
# notebook 01's rule on shapes says what a docstring's shapes promise (tests/judge/stated_shapes.py).
FUNCTIONS = [name for name, e in REGISTRY.items() if callable(e.reference)]


def docstring_behaviours(exercise: str) -> list[str]:
    """The statements of the exercise's docstring that state a behaviour, shapes included."""
    e = REGISTRY[exercise]
    shapes = stated(e.notebook, exercise).statements
    return [s for s in statements(docstring(e.notebook, exercise)) if STATES_A_BEHAVIOUR.search(s) or s in shapes]


def _parts(answer):
    return answer if isinstance(answer, tuple) else (answer,)


def _recast(answer, when, cast):
    """`answer` with every part `when` picks recast by `cast`, tuple or not."""
    parts = tuple(cast(p) if when(p) else p for p in _parts(answer))
    return parts if isinstance(answer, tuple) else parts[0]


def _is_float(x) -> bool:
    return isinstance(x, (float, np.floating, np.ndarray)) and np.asarray(x).dtype.kind == "f"


def _is_count(x) -> bool:
    return isinstance(x, (int, np.integer, np.ndarray)) and not isinstance(x, bool) and np.asarray(x).dtype.kind in "iu"


def _arrays_in(args, kwargs) -> list[np.ndarray]:
    return [np.asarray(a) for a in (*args, *kwargs.values()) if isinstance(a, (np.ndarray, np.generic, int, float))
            and not isinstance(a, bool)]


def _in_float64(reference):
    """The reference, its float answer turned float64 (breaks "float32 in gives float32 out")."""
    return lambda *a, **k: _recast(reference(*a, **k), _is_float, lambda p: np.asarray(p, dtype=np.float64)[()])


def _integers_in_float32(reference):
    """The reference, its answer to integers computed in float32 (breaks "integers give float64")."""
    def answer(*args, **kwargs):
        out = reference(*args, **kwargs)
        if all(a.dtype.kind in "iub" for a in _arrays_in(args, kwargs)):
            return _recast(out, _is_float, lambda p: np.asarray(p, dtype=np.float32)[()])
        return out
    return answer


def _counts_as_floats(reference):
    """The reference, its counts given as floats (breaks "a count must be an exact integer")."""
    return lambda *a, **k: _recast(reference(*a, **k), _is_count, lambda p: np.asarray(p, dtype=np.float64)[()])


def _whole(value):
    """A count given as True or as a whole float, taken as the integer it stands for."""
    if isinstance(value, (bool, np.bool_, float, np.floating)) and float(value).is_integer():
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "bf" and np.isfinite(value).all() \
            and (value == np.rint(value)).all():
        return value.astype(np.int64)
    return value


def _counts_coerced(exercise, names):
    """The reference that takes a count of `names` given as True or 2.0 as 1 or 2 (breaks "given as an integer")."""
    e = REGISTRY[exercise]
    params = parameters(e.notebook, exercise)

    def answer(*args, **kwargs):
        args = [_whole(a) if params[i] in names else a for i, a in enumerate(args)]
        return e.reference(*args, **{k: _whole(v) if k in names else v for k, v in kwargs.items()})
    return answer


def _fails_some_case(exercise, answer) -> str:
    return "" if failed_by(answer, hidden_cases(exercise)) else "no hidden case fails an answer that breaks it"


def _named(exercise: str, statement: str) -> set[str]:
    """The parameters a statement names (all of them when it names none: "Both positive integers")."""
    params = parameters(REGISTRY[exercise].notebook, exercise)
    return {p for p in params if re.search(rf"\b{p}\b", statement)} or set(params)


def _counts_given(exercise: str, statement: str) -> str:
    names, cases = _named(exercise, statement), hidden_cases(exercise)
    below_1 = [c for c in cases if c.get("raises") and any(
        np.size(v) and not isinstance(v, bool) and isinstance(v, (int, float, np.number, np.ndarray))
        and np.asarray(v).dtype.kind in "iuf" and (np.asarray(v) < 1).any()
        for k, v in arguments_of(REGISTRY[exercise].notebook, exercise, c).items() if k in names)]
    if not below_1:
        return f"no hidden case gives {sorted(names)} a number below 1"
    return _fails_some_case(exercise, _counts_coerced(exercise, names))


def _shapes(exercise: str, statement: str) -> str:
    problems = shape_problems(exercise)
    return problems[0] if problems else ""


def _shapes_refused(exercise: str, statement: str) -> str:
    if exercise in SHAPES_UNCHECKED:
        return "notebook 01's rule on shapes leaves this exercise out"
    refused = [c for c in hidden_cases(exercise) if c.get("raises") and _misfits(exercise, c)]
    return "" if refused else "no hidden case must raise for arrays that do not fit the docstring's shapes"


def _tagged(tag):
    def verify(exercise: str, statement: str) -> str:
        return "" if [c for c in hidden_cases(exercise) if tag in c.get("checks", ())] else f"no hidden case tagged {tag}"
    return verify


# Notebook 01's general rules as a docstring states them: rule → (notebook 01's words, the statements that state
# it, how to check it holds for an exercise: "" when it does, else why not).
DOCSTRING_RULES = {
    "float32": ("float32 in gives float32 out", re.compile(r"\bdtype\b|\bfloat32\b"),
                lambda exercise, s: _fails_some_case(exercise, _in_float64(REGISTRY[exercise].reference))),
    "integers": ("**Integers** given where numbers are computed",
                 re.compile(r"\bintegers(?: and numbers)? give float64"),
                 lambda exercise, s: _fails_some_case(exercise, _integers_in_float32(REGISTRY[exercise].reference))),
    "counts given": ("A **count or size you are given**",
                     re.compile(r"(?:Raises ValueError (?:when|on) [\w, ]+? (?:that )?(?:is|are) )?"
                                r"(?:not )?(?:an? )?(?:\bpositive int(?:eger)?s?\b|\bbelow 1\b)"), _counts_given),
    "counts returned": ("must be an exact integer",
                        re.compile(r"^Returns\b[^:]*\b(?:an int|ints|integers|integer array)\b(?! give| and numbers)"),
                        lambda exercise, s: _fails_some_case(exercise, _counts_as_floats(REGISTRY[exercise].reference))),
    "large scores": ("scores as large as ±1e4 must give finite weights", re.compile(r"1e4"), _tagged("1e4")),
    "shapes": ("**Shapes** are written as in", None, _shapes),
    "shapes refused": ("Arrays whose shapes do not fit the ones an exercise gives",
                       re.compile(r"(?:Raises ValueError (?:when|on) (?:the )?)?"
                                  r"(?:\bshapes? (?:that )?(?:do|does) not fit|\bmismatched shapes|\bbad shapes)"),
                       _shapes_refused),
}


def general_rules(exercise: str, statement: str) -> dict[str, list[str]]:
    """The general rules of notebook 01 that a statement of the exercise's docstring states → the words stating it."""
    shapes = stated(REGISTRY[exercise].notebook, exercise).statements
    found = {rule: list(shapes.get(statement, ())) if pattern is None else pattern.findall(statement)
             for rule, (_, pattern, _) in DOCSTRING_RULES.items()}
    return {rule: words for rule, words in found.items() if words}


def beyond_the_general_rules(exercise: str, statement: str) -> str:
    """The statement without the words that state notebook 01's general rules: what else it says."""
    for words in general_rules(exercise, statement).values():
        for w in words:
            statement = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)" if w[:1].isalnum() else re.escape(w), "", statement,
                               count=1)
    return statement


def shape_problems(exercise: str) -> list[str]:
    """Where the exercise's cases and the shapes its docstring gives disagree: a case that raises nothing and does
    not fit (its inputs, or the reference's answer), or an argument given `...` that no hidden case batches."""
    e = REGISTRY[exercise]
    found = [f"{c['label']}: {why}" for c in [*visible_cases_of(exercise), *hidden_cases(exercise)] if not c.get("raises")
             for why in [misfit(e.notebook, exercise, arguments_of(e.notebook, exercise, c), c["expected"], answered=True)]
             if why]
    for given in stated(e.notebook, exercise).arguments:
        found += [f"{c['label']}: {given.name} of dtype {np.asarray(value).dtype}, not {given.statement!r}"
                  for c in [*visible_cases_of(exercise), *hidden_cases(exercise)] if given.kind and not c.get("raises")
                  for value in [arguments_of(e.notebook, exercise, c).get(given.name)]
                  if value is not None and np.asarray(value).dtype.kind not in given.kind]
        if given.batched and not given.broadcast and not any(
                np.ndim(arguments_of(e.notebook, exercise, c).get(given.name)) >= len(given.dims)
                and arguments_of(e.notebook, exercise, c).get(given.name) is not None
                for c in hidden_cases(exercise) if not c.get("raises")):
            found.append(f"no hidden case gives {given.name} a batch, as its '...' allows")
    return found


@pytest.mark.parametrize("exercise", FUNCTIONS)
def test_every_statement_of_a_docstring_that_states_a_behaviour_is_claimed(exercise):
    e = REGISTRY[exercise]
    said = [flat(words) for r in e.requirements for words in (r.says, *r.docstring_quotes)]
    unclaimed = [s for s in docstring_behaviours(exercise) if not any(w in s for w in said)
                 and (not general_rules(exercise, s) or STATES_A_BEHAVIOUR.search(beyond_the_general_rules(exercise, s)))]
    assert not unclaimed, f"{exercise}: docstring statements that state a behaviour no requirement or rule claims: " \
                          f"{unclaimed}"


@pytest.mark.parametrize("exercise", FUNCTIONS)
def test_every_general_rule_a_docstring_states_holds(exercise):
    wrong = [(s, rule, why) for s in statements(docstring(REGISTRY[exercise].notebook, exercise))
             for rule in general_rules(exercise, s) for why in [DOCSTRING_RULES[rule][2](exercise, s)] if why]
    assert not wrong


@pytest.mark.parametrize("exercise", FUNCTIONS)
def test_every_case_fits_the_shapes_the_docstring_gives(exercise):
    assert not shape_problems(exercise)


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_requirements_docstring_words_are_in_its_functions_docstring(exercise):
    e = REGISTRY[exercise]
    text = flat(docstring(e.notebook, exercise)) if callable(e.reference) else ""
    assert not [q for r in e.requirements for q in r.docstring_quotes if flat(q) not in text]
