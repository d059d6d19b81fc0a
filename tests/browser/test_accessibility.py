"""Can a student who uses a screen reader, a keyboard alone or high zoom use every page the kit makes, and a grader
every page they grade in?

axe-core (tests/shared/axe.py; the npm package `make axe` installs) runs the rules of
WCAG 2.0 and 2.1 at levels A and AA in Chromium, driven by Playwright
(tests/shared/browser.py), on every page the kit makes, each made the way the kit makes it,
at three sizes (SIZES): a 1280-px window, the same at 200% zoom (640 CSS px) and a
320-CSS-px window (a phone, or 1280 px at 400%):

- students' feedback pages (`nbgrader generate_feedback` in `make demo`'s run on
  the example class), every notebook's: passed (ada), failed with a diagnosis (bo:
  softmax over the wrong axis), not started (dee), late (fay: the late notice), a
  notebook that could not be read (gus: every page says so, under "Your hand-in"); graded
  unconfined (notebook 03 in a course that opts out); and a student whose messages are
  long, odd and hostile and whose written answers are markup (tests/shared/hostile_student.py);
  the page a hand-in over the grading service's limit gets (kit/grading_service/notice.py), and
  the page each notebook of a hand-in none of whose notebooks can be read gets
  (kit/nbgrader_glue/unreadable_hand_in.py): one template (kit/hand_in/page.py), so two pages of
  each, one of them named as markup;
- the class report and its anonymous version, whole, whatever sections it holds, the
  report of a class with the hostile student, and the report with the grading service's
  attempts before passing;
- the Model Explorer, on trained and on random weights, after a prompt and a head are chosen;
- the formgrader's view of a submission with written answers (a real Jupyter server,
  nbgrader's page in the kit's template): what the notebook holds is counted,
  nbgrader's own grading controls and navigation are printed, never counted;
- release notebooks in JupyterLab, run cell by cell as a student does (check messages,
  placeholders for figures not drawn yet), and solved notebooks (passed checks,
  figures, notebook 09's head grids): only what the kit wrote is audited (outputs and
  rendered markdown), at 1280 px and 200%; JupyterLab's own violations, and the kit's
  content at 320 px (JupyterLab leaves a cell some 200 CSS px there, with its side
  panels closed), are printed, never counted.

Beyond axe, on every page the kit lays out itself (feedback, report, explorer): at every
size nothing scrolls sideways but a region of its own that the keyboard reaches and a
screen reader names, and the headings run in order from h1. The explorer works with the
keyboard alone; every figure label meets AA contrast. Each page is loaded once per size,
in one Chromium.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from explorer.reference import reference_source
from explorer.server import start
from kit import nbgrader_cli
from autograder.handed_in import set_aside_unreadable
from kit.grading_service.notice import write_notices
from kit.hand_in.page import page_folder, write_page_folder
from kit.nbgrader_glue.unreadable_hand_in import pages_of
from kit.notebooks import ROOT
from tests.browser.jupyterlab import lab_page, open_notebook, run_all, running_lab, shown_cells
from tests.shared.axe import AUDIT_RECORDS, TAGS, audit, require_axe
from tests.shared.browser import DOCS, chromium, require_browser
from tests.shared.hostile_student import STUDENT as HOSTILE

NOTEBOOK = "03_softmax_and_mix"  # the notebook with the most figures and checks of different kinds
FEEDBACK = {"passed": "ada", "failed with a diagnosis": "bo", "not started": "dee", "late": "fay"}  # examples/class
PROMPT = "the dog sees a red ball . the dog sees a red ball"
HEAD = (1, 2)  # the layer and head chosen in the explorer
# A 1280-px window; the same at 200% zoom (640 CSS px, two device pixels each); a 320-CSS-px window.
SIZES = {"1280 px": {"viewport": {"width": 1280, "height": 900}},
         "200%": {"viewport": {"width": 640, "height": 450}, "device_scale_factor": 2},
         "320 px": {"viewport": {"width": 320, "height": 640}}}
# What the kit writes in JupyterLab: cell outputs and its rendered markdown.
KIT_IN_LAB = [".jp-OutputArea-output", ".jp-MarkdownCell .jp-RenderedMarkdown"]
LAB_COUNTED = ("1280 px", "200%")  # JupyterLab's layout at 320 px is its own (see above)
# In the formgrader, nbgrader's grading controls (score and comment boxes, buttons) in each graded cell's frame.
NBGRADERS_CONTROLS = [["#notebook-container .nbgrader_cell > .panel-heading"],
                      ["#notebook-container .nbgrader_cell > .panel-footer"]]
# How a page is laid out: its width against the window's, its headings' levels in order, and every region that
# scrolls without the keyboard reaching it (no tabindex) or a screen reader naming it.
LAYOUT = """() => {
    const scrolls = e => { const s = getComputedStyle(e);
        return (['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1)
            || (['auto', 'scroll'].includes(s.overflowY) && e.scrollHeight > e.clientHeight + 1); };
    const named = e => e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');
    return {width: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,
            headings: [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map(h => +h.tagName[1]),
            unreachable: [...document.body.querySelectorAll('*')].filter(e => scrolls(e) && (e.tabIndex < 0 || !named(e)))
                .map(e => e.outerHTML.slice(0, 120))};
}"""


@pytest.fixture(scope="module")
def audited(request) -> dict:
    """Page → the axe rules run on it; at the end, recorded for the count in the run's summary."""
    pages: dict[str, frozenset[str]] = {}
    yield pages
    if pages and getattr(request.config, "cache", None) is not None:  # the run's summary counts them (tests/conftest.py)
        worker = getattr(request.config, "workerinput", {}).get("workerid", "main")
        record = request.config.cache.mkdir(AUDIT_RECORDS) / f"{worker}-{os.getpid()}.json"
        record.write_text(json.dumps({page: sorted(rules) for page, rules in pages.items()}))


@pytest.fixture(scope="module")
def browser():
    require_browser()
    require_axe()
    with chromium() as browser:
        yield browser


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert errors == [], errors


@pytest.fixture
def sized(browser):
    """sized(size): a page of a window of that size (SIZES); every page it made is closed at the end."""
    contexts = []

    def new(size: str):
        contexts.append(browser.new_context(**SIZES[size]))
        return contexts[-1].new_page()
    yield new
    for context in contexts:
        context.close()


def _laid_out_well(layout: dict) -> list[str]:
    """What is wrong with a page's layout (LAYOUT): it scrolls sideways, its headings do not start at h1 or skip a
    level going down, a region scrolls that the keyboard cannot reach or that has no name."""
    wrong = []
    if layout["width"] > layout["window"]:
        wrong.append(f"scrolls sideways: {layout['width']} CSS px wide in {layout['window']}")
    levels = layout["headings"]
    if levels[:1] != [1] or any(b > a + 1 for a, b in zip(levels, levels[1:])):
        wrong.append(f"headings out of order: {levels}")
    wrong += [f"a scrolling region without tabindex or name: {e}" for e in layout["unreachable"]]
    return wrong


# What auditing a page file's bytes at a size found (rules run, what is wrong), kept for the process: a feedback
# page two students share byte for byte (ada's and bo's, but for bo's softmax) is one check, run once. The pages
# are whole in their file (no resource outside it), so their bytes decide what axe and the layout find.
_AUDITS: dict[tuple[str, str, bool], tuple[frozenset, list[str]]] = {}


def _audit_pages(sized, audited: dict, family: str, pages: dict[str, str], laid_out_by_the_kit: bool = True,
                 before=None) -> None:
    """Audit every page (name → URL) at every size, each distinct page file loaded once per size in the process (a
    file of the same bytes gets the same findings); fail on any violation and, where the
    kit lays the page out, on anything _laid_out_well finds. `before(page, name)`: done after each load."""
    problems = []
    for size in SIZES:
        page = sized(size)
        for name, url in pages.items():
            what = f"{family}, {name}, at {size}"
            key = None
            if before is None and url.startswith("file://"):
                key = (hashlib.sha256(Path(unquote(urlparse(url).path)).read_bytes()).hexdigest(), size,
                       laid_out_by_the_kit)
            result = _AUDITS.get(key) if key else None
            if result is None:
                page.goto(url)
                if before:
                    before(page, name)
                found = audit(page)
                print(found.report(what))
                wrong = list(found.violations)
                if laid_out_by_the_kit:
                    wrong += _laid_out_well(page.evaluate(LAYOUT))
                result = (found.rules, wrong)
                if key:
                    _AUDITS[key] = result
            else:
                print(f"{what}: the same bytes as a page audited at this size before, the same findings")
            rules, wrong = result
            audited[what] = rules
            problems += [f"{what}: {w}" for w in wrong]
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- the pages, made as the kit makes them


@pytest.fixture(scope="module")
def unconfined_feedback(tmp_path_factory, copy_released) -> Path:
    """The feedback page of a student graded unconfined (a course that opts out, on a machine it
    finds no confinement on: KIT_CONFINEMENT=none), as tests/confinement/test_refusal.py makes it."""
    course = copy_released(tmp_path_factory.mktemp("unconfined"))
    submitted = course / "submitted" / "ada" / "attention"
    submitted.mkdir(parents=True)
    shutil.copy(ROOT / "source" / "attention" / f"{NOTEBOOK}.ipynb", submitted)
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace("unconfined = false", "unconfined = true"))
    for command in (("db", "student", "add", "ada"), ("autograde", "attention"), ("generate_feedback", "attention")):
        nbgrader_cli.run(*command, "--log-level=ERROR", cwd=course, env={"HOME": str(course), "KIT_CONFINEMENT": "none"},
                         check=True, capture_output=True)
    page = course / "feedback" / "ada" / "attention" / f"{NOTEBOOK}.html"
    assert "Graded unconfined." in page.read_text()
    return page


def _notebook_pages(folder: Path) -> list[Path]:
    """Every notebook's feedback page in a student's feedback folder (not the explorer's own page)."""
    return [page for page in sorted(folder.glob("*.html")) if page.name != "explorer.html"]


@pytest.fixture(scope="module")
def feedback_pages(graded_class, hostile_class, unconfined_feedback, tmp_path_factory) -> dict[str, list[Path]]:
    """Kind → every notebook's feedback page of its student (the written answers with the grader's points and
    comments in 05 and 08); graded unconfined: notebook 03's."""
    pages = {kind: _notebook_pages(graded_class.course / "feedback" / student / "attention")
             for kind, student in FEEDBACK.items()}
    pages["long, odd and hostile"] = _notebook_pages(hostile_class / "feedback" / HOSTILE / "attention")
    assert all(len(found) == 9 for found in pages.values()), pages
    unread = pages["a notebook that could not be read"] = _notebook_pages(graded_class.course / "feedback" / "gus" / "attention")
    assert len(unread) == 8 and all("Your hand-in" in page.read_text() for page in unread)  # gus's 03: not JSON
    assert "not started" in pages["not started"][2].read_text()
    assert "softmax over the wrong axis" in pages["failed with a diagnosis"][2].read_text()
    assert all("Late submission penalty" in page.read_text() for page in pages["late"])
    over_the_limit = _over_the_limit(graded_class, tmp_path_factory.mktemp("over-the-limit"))
    none_readable = _none_readable(graded_class, tmp_path_factory.mktemp("none-readable"))
    return {**pages, "graded unconfined": [unconfined_feedback], "over the limit": over_the_limit,
            "none of its notebooks could be read": none_readable}


MARKUP_NAME = "<b>mine<b> & <i>co"  # a notebook's file name (which holds no slash)


def _ada_with_a_markup_name(graded_class, folder: Path) -> Path:
    submitted = shutil.copytree(graded_class.course / "submitted" / "ada" / "attention", folder / "submitted")
    shutil.copy(submitted / f"{NOTEBOOK}.ipynb", submitted / f"{MARKUP_NAME}.ipynb")
    return submitted


def _over_the_limit(graded_class, folder: Path) -> list[Path]:
    """Two of the pages ada's hand-in gets over the grading service's limit, one notebook named as markup."""
    pages = write_notices(folder / "notices", _ada_with_a_markup_name(graded_class, folder), "attention",
                          time.time() + 3600,
                          "You have had 3 graded feedbacks in the last 24 hours; the course gives at most 3 a day.")
    return [page for page in pages if page.stem in (NOTEBOOK, MARKUP_NAME)]


def _none_readable(graded_class, folder: Path) -> list[Path]:
    """Two of the pages ada's hand-in gets with every notebook cut short, one named as markup."""
    submitted = _ada_with_a_markup_name(graded_class, folder)
    for notebook in submitted.glob("*.ipynb"):
        notebook.write_bytes(notebook.read_bytes()[:200])
    pages = pages_of(submitted, "attention", set_aside_unreadable(submitted))
    write_page_folder(folder / "feedback", page_folder(submitted, pages))
    return [folder / "feedback" / f"{name}.html" for name in (NOTEBOOK, MARKUP_NAME)]


@pytest.fixture(scope="module")
def report_pages(graded_class, hostile_class, tmp_path_factory) -> dict[str, Path]:
    """`make demo`'s class report, and its anonymous version, written by kit.report's own functions
    (into a folder of this test's: the graded class is shared and read-only); the hostile class's report."""
    from kit.report.build import course_directory
    from kit.report.charts import all_charts
    from kit.report.collect import collect
    from kit.report.page import render

    folder = tmp_path_factory.mktemp("report")
    results = collect(course_directory(graded_class.course), "attention")
    (folder / "anonymous.html").write_text(render(results, all_charts(results), anonymous=True), encoding="utf-8")
    for number, exercise in enumerate(results.exercises):  # as the grading service's journal would give them
        exercise.attempts = {s.id: [False] * (number % 3) + [number % 4 != 0] for s in results.students}
    (folder / "on hand-in.html").write_text(render(results, all_charts(results)), encoding="utf-8")
    return {"named": graded_class.course / "reports" / "attention" / "index.html", "anonymous": folder / "anonymous.html",
            "with a hostile student": hostile_class / "reports" / "attention" / "index.html",
            "graded on hand-in": folder / "on hand-in.html"}


@pytest.fixture(scope="module")
def explorer():
    server, url = start(reference_source(), port=0)
    yield url
    server.shutdown()
    server.server_close()


def _explore(page, url: str, weights: str) -> None:
    """The explorer with PROMPT run on `weights` and HEAD chosen, by mouse and typing."""
    page.goto(url)
    page.wait_for_selector("body[data-state=ready]")
    page.fill("#prompt", PROMPT)
    page.press("#prompt", "Enter")
    page.wait_for_selector(f'body[data-state=ready][data-prompt="{PROMPT}"]')
    if weights != "trained":
        page.check(f"input[name=weights][value={weights}]")
        page.wait_for_selector(f"body[data-state=ready][data-weights={weights}]")
    layer, head = HEAD
    page.click(f'.head[data-layer="{layer}"][data-head="{head}"]')
    page.wait_for_selector(f'.head.selected[data-layer="{layer}"][data-head="{head}"]')


# ---------------------------------------------------------------- the audit, at every size


@pytest.mark.parametrize("kind", [*FEEDBACK, "long, odd and hostile", "a notebook that could not be read",
                                  "graded unconfined", "over the limit", "none of its notebooks could be read"])
def test_does_every_feedback_page_pass_the_audit_at_every_size(sized, feedback_pages, audited, kind):
    _audit_pages(sized, audited, f"feedback page, {kind}", {path.stem: path.as_uri() for path in feedback_pages[kind]})


@pytest.mark.parametrize("version", ["named", "anonymous", "with a hostile student", "graded on hand-in"])
def test_does_the_whole_class_report_pass_the_audit_at_every_size(sized, report_pages, audited, version):
    _audit_pages(sized, audited, "class report", {version: report_pages[version].as_uri()})  # every section it holds


@pytest.mark.parametrize("weights", ["trained", "random"])
def test_does_the_explorer_pass_the_audit_at_every_size_after_a_prompt_and_a_head_are_chosen(sized, explorer, audited,
                                                                                            weights):
    from kit.report.charts import style

    def chosen(page, name):
        _explore(page, explorer, weights)
        page.click("#table-details summary")  # the widest part: every weight, in a box of its own
        # axe leaves the grids' SVG labels (it cannot tell their background) for a person: on the page's white,
        # each label's fill must meet 4.5:1.
        fills = set(page.evaluate("() => [...document.querySelectorAll('svg text')].map(t => getComputedStyle(t).fill)"))
        assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") in ("rgba(0, 0, 0, 0)",
                                                                                          "rgb(255, 255, 255)")
        for fill in fills:
            shade = style.luminance([int(c) / 255 for c in re.findall(r"\d+", fill)[:3]])
            assert 1.05 / (shade + 0.05) >= 4.5, f"an SVG label in {fill} on white"

    _audit_pages(sized, audited, "explorer", {f"{weights} weights": explorer}, before=chosen)


@pytest.fixture(scope="module")
def formgrader_pages(hostile_class, tmp_path_factory):
    """Name → the formgrader's page of a submission with written answers (the hostile student's notebooks 05 and
    08, ada's 05), served by a real Jupyter server in a copy of the hostile class (the server writes beside it)."""
    from tests.shared import formgrader

    require_browser()
    require_axe()
    course = tmp_path_factory.mktemp("formgrader") / "course"
    shutil.copytree(hostile_class, course, symlinks=True)
    with formgrader.running(course) as server:
        pages = {}
        for student, notebook in ((HOSTILE, "05_masks_and_cross_attention"), (HOSTILE, "08_check_yourself"),
                                  ("ada", "05_masks_and_cross_attention")):
            submitted = server.api(f"/formgrader/api/submitted_notebooks/attention/{notebook}")
            submission = next(s["id"] for s in submitted if s["student"] == student)
            pages[f"{student}, {notebook}"] = (f"http://127.0.0.1:{server.port}/formgrader/submissions/{submission}/"
                                               f"?token={server.token}")
        yield pages


def test_does_the_formgraders_view_of_written_answers_pass_the_audit_at_every_size(sized, formgrader_pages, audited):
    problems = []
    for size in SIZES:
        page = sized(size)
        for name, url in formgrader_pages.items():
            page.goto(url)
            page.wait_for_load_state("networkidle")
            what = f"formgrader, {name}, at {size}"
            found = audit(page, {"include": [["#notebook-container"]], "exclude": NBGRADERS_CONTROLS})
            audited[what] = found.rules
            print(found.report(what))
            print(audit(page, {"exclude": [["#notebook-container"]]}).report(f"{what}: nbgrader's own (not counted)"))
            layout = page.evaluate(LAYOUT)
            problems += [f"{what}: {v}" for v in found.violations]
            if layout["width"] > layout["window"]:
                problems.append(f"{what}: scrolls sideways, {layout['width']} CSS px wide in {layout['window']}")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    require_browser()
    require_axe()
    home = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "assignments" / "attention", home / "release", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "source" / "attention", home / "solved", ignore=shutil.ignore_patterns("__pycache__"))
    with running_lab(home, tmp_path_factory.mktemp("lab-log") / "lab.log", pythonpath=ROOT) as lab:
        yield lab


def _run_each_cell(page, path: str) -> list[dict]:
    """Open `path` and run every cell in turn, as a student pressing Shift+Enter through it (a failing
    check does not stop the cells after it, as Run All would)."""
    open_notebook(page, path)
    page.evaluate("""async () => {
        const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
        for (let i = 0; i < notebook.widgets.length; i++) {
            notebook.activeCellIndex = i;
            await app.commands.execute('notebook:run-cell');
        }
    }""")
    page.wait_for_function("""() => {
        const w = window.jupyterapp.shell.currentWidget;
        const prompts = [...w.node.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent.trim());
        return !prompts.some(t => t.includes('*') || t === '[ ]:') && w.sessionContext.session.kernel.status === 'idle';
    }""", timeout=180_000)
    return shown_cells(page)


def _kit_context(page) -> dict:
    """axe's context for what the kit wrote in the notebook in front (the ones opened before stay hidden)."""
    widget = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return {"include": [[f"[id='{widget}'] {selector}"] for selector in KIT_IN_LAB]}


def _figure_alts(page, selector: str) -> list[str]:
    return page.evaluate("s => [...document.querySelectorAll(s)].map(i => i.getAttribute('alt') ?? '')", selector)


def _notebooks_figures(page) -> list[str]:
    widget = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")
    return _figure_alts(page, f"[id='{widget}'] .jp-OutputArea img")


def test_does_what_the_kit_writes_in_jupyterlab_pass_the_audit(browser, lab, audited):
    page = lab_page(browser, lab)
    found, own = {}, None
    try:
        shown = _run_each_cell(page, f"release/{NOTEBOOK}.ipynb")
        text = "\n".join(cell["text"] for cell in shown)
        assert "not started" in text and "Figure not drawn yet" in text, text[:2000]
        found |= _at_every_size(page, f"release {NOTEBOOK}")
        for solved in (NOTEBOOK, "09_model_explorer"):
            shown = run_all(page, f"solved/{solved}.ipynb")
            text = "\n".join(cell["text"] for cell in shown)
            assert any(cell["images"] for cell in shown) and "✓" in text
            assert all(mark == "✓ passed:" for mark in re.findall(r"[✓✗]\s*\S+", text)), text[:2000]
            alts = _notebooks_figures(page)
            assert alts and all(re.search(r"\d\.\d|\.\d\d", alt) for alt in alts), alts  # every figure's numbers
            found |= _at_every_size(page, f"solved {solved}")
        own = audit(page, {"exclude": _kit_context(page)["include"]})
    finally:
        page.close()
    print(own.report("JupyterLab's own (not counted)"))
    counted = {what: result for what, result in found.items() if what.endswith(LAB_COUNTED)}
    for what, result in found.items():
        if what in counted:
            audited[f"JupyterLab, {what}"] = result.rules
        print(result.report(f"JupyterLab, {what}" + ("" if what in counted else " (JupyterLab's layout: not counted)")))
    assert not any(r.violations for r in counted.values()), \
        "\n".join(r.report(f"JupyterLab, {what}") for what, r in counted.items() if r.violations)


def _at_every_size(page, what: str) -> dict:
    """The audit of what the kit wrote in the notebook in front at every size, the notebook loaded once (the
    window resized, JupyterLab's side panels closed, as a reader at that size would)."""
    found = {}
    for size, window in SIZES.items():
        page.set_viewport_size(window["viewport"])
        page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
        page.wait_for_function("w => document.documentElement.clientWidth === w", arg=window["viewport"]["width"])
        found[f"{what}, at {size}"] = audit(page, _kit_context(page))
    page.set_viewport_size(SIZES["1280 px"]["viewport"])
    return found


# ---------------------------------------------------------------- beyond the audit: keyboard, pictures, words, contrast

FOCUS_SHOWN = """() => { const s = getComputedStyle(document.activeElement);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'; }"""
FOCUSED = """() => { const e = document.activeElement;
    return e.id || (e.name && `${e.name}=${e.value}`) || e.closest('.head')?.dataset.layer + '/' + e.closest('.head')?.dataset.head
        || e.tagName.toLowerCase(); }"""


def test_can_the_explorer_be_used_with_the_keyboard_alone(page, explorer):
    page.goto(explorer)
    page.wait_for_selector("body[data-state=ready]")
    reached, unseen = [], []
    for _ in range(30):  # Tab through the page: every control, once, each with a visible focus
        page.keyboard.press("Tab")
        where = page.evaluate(FOCUSED)
        if where in reached:
            break
        reached.append(where)
        if not page.evaluate(FOCUS_SHOWN):
            unseen.append(where)
    heads = [f"{layer}/{head}" for layer in range(2) for head in range(4)]
    assert reached[:4] == ["prompt", "run", "weights=trained", "show"] and reached[4:12] == heads, reached
    assert unseen == [], f"no visible focus on {unseen}"
    # A prompt typed and run, the random weights chosen with an arrow key, then a head, with the keyboard alone.
    page.focus("body")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+a")
    page.keyboard.type(PROMPT)
    page.keyboard.press("Enter")
    page.wait_for_selector(f'body[data-state=ready][data-prompt="{PROMPT}"]')
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector("body[data-state=ready][data-weights=random]")
    assert page.evaluate(FOCUSED) == "weights=random" and page.evaluate(FOCUS_SHOWN)
    page.keyboard.press("ArrowUp")
    page.wait_for_selector("body[data-state=ready][data-weights=trained]")
    before = page.inner_text("#description")
    layer, head = HEAD
    page.keyboard.press("Tab")  # the select
    for _ in range(1 + 4 * layer + head):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(f'.head.selected[data-layer="{layer}"][data-head="{head}"]')
    assert page.evaluate(FOCUSED) == f"{layer}/{head}", "choosing a head lost the keyboard's place"
    described = page.inner_text("#description")
    assert described != before and described.startswith(f"Layer {layer}, head {head}") and PROMPT in described
    n = len(PROMPT.split()) + 1
    assert len(re.findall(r"looks most at", described)) == n and re.search(r"\d\.\d\d", described)
    assert page.locator("#weights-table tbody tr").count() == n
    assert page.get_attribute("#description", "aria-live") == "polite"
    page.keyboard.press("Space")  # Space chooses too: the focus stays
    assert page.evaluate(FOCUSED) == f"{layer}/{head}"


def test_can_every_scrolling_code_box_of_a_feedback_page_be_reached_and_read_with_the_keyboard(sized, feedback_pages):
    """At 320 px the hostile student's long lines of code scroll in their box: Tab reaches each box, it says what
    it holds, and the arrow keys scroll it."""
    page = sized("320 px")
    page.goto(feedback_pages["long, odd and hostile"][2].as_uri())  # notebook 03: a line of code 600 characters long
    boxes = page.evaluate("() => [...document.querySelectorAll('.code')].filter(e => e.scrollWidth > e.clientWidth)"
                          ".map(e => e.getAttribute('aria-label'))")
    assert boxes, "no code box scrolls at 320 px"
    reached = []
    for _ in range(400):
        page.keyboard.press("Tab")
        label = page.evaluate("() => document.activeElement.classList.contains('code') ? "
                              "document.activeElement.getAttribute('aria-label') : null")
        if label in boxes and label not in reached:
            reached.append(label)
            page.keyboard.press("ArrowRight")  # Chromium scrolls a focused box smoothly: it gets there in a few frames
            page.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=10_000)
            assert page.evaluate(FOCUS_SHOWN), f"{label}: no visible focus"
        if len(reached) == len(boxes):
            break
    assert reached == boxes
    assert all(label.startswith("Code of ") for label in boxes), boxes


def test_a_feedback_page_at_320_px_as_readme_shows_it(sized, feedback_pages):
    """docs/: a student's feedback at 320 CSS px, its top (the score and the graded parts, the late notice) and a
    written answer with the grader's points and comment; and a failed check's message."""
    page = sized("320 px")
    page.goto(feedback_pages["late"][4].as_uri())  # notebook 05: written answers, the late notice
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "feedback-320px.png"))
    page.locator(".written-answer").first.scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('.written-answer').scrollIntoView({block: 'start'})")
    page.screenshot(path=str(DOCS / "feedback-320px-written-answer.png"))
    page.goto(feedback_pages["failed with a diagnosis"][2].as_uri())  # notebook 03: softmax over the wrong axis
    page.evaluate("() => document.querySelector('.output_error').closest('.cell').scrollIntoView({block: 'start'})")
    page.screenshot(path=str(DOCS / "feedback-320px-message.png"))


def test_does_every_figure_in_the_report_carry_its_numbers_in_words(page, report_pages):
    for version in ("named", "anonymous"):  # the example class's: every chart drawn
        path = report_pages[version]
        page.goto(path.as_uri())
        alts = _figure_alts(page, "img")
        assert len(alts) == 3 and all(re.search(r"\d", alt) and len(alt) > 60 for alt in alts), (version, alts)


def test_does_every_check_message_say_in_words_whether_it_passed(feedback_pages):
    for kind, paths in feedback_pages.items():
        text = "".join(message for path in paths for message in
                       re.findall(r'class="[^"]*output_(?:stream|error)[^"]*">\s*<pre>(.*?)</pre>', path.read_text(), re.S))
        marks = re.findall(r"[✓✗]\s*\S+", text)
        assert all(mark.endswith("passed:") for mark in marks), (kind, sorted(set(marks)))
        assert kind in ("not started", "long, odd and hostile", "over the limit", "none of its notebooks could be read") \
            or marks, kind


def test_does_every_label_on_a_coloured_cell_of_the_reports_heat_map_meet_aa_contrast():
    """The heat map writes each count on its cell in black or white: at least 4.5:1 on every colour of
    viridis (the notebooks' figures: tests/notebooks/test_figures.py)."""
    import matplotlib

    from kit.report.charts import style

    def contrast(a, b) -> float:
        high, low = sorted([style.luminance(a), style.luminance(b)], reverse=True)
        return (high + 0.05) / (low + 0.05)

    cmap = matplotlib.colormaps[style.CMAP]
    worst, at = min((contrast(cmap(i / 255), matplotlib.colors.to_rgba(style.readable_on(cmap(i / 255)))), i / 255)
                    for i in range(256))
    assert worst >= 4.5, f"{style.CMAP} at {at:.3f}: {worst:.2f}:1"
    assert contrast((1, 1, 1), (0, 0, 0)) == pytest.approx(21)


def test_the_makefile_installs_the_axe_core_the_audit_names():
    from tests.shared.axe import VERSION

    assert f"AXE_VERSION = {VERSION}\n" in (ROOT / "Makefile").read_text()
    assert len(TAGS) == 4
