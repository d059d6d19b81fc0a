"""Can a student who uses a screen reader, a keyboard alone or high zoom use every page the kit makes?

axe-core (tests/axe.py; the npm package `make axe` installs) runs the rules of
WCAG 2.0 and 2.1 at levels A and AA in Chromium, driven by Playwright
(tests/browser.py), on every page the kit makes, each made the way the kit makes it:

- students' feedback pages (`nbgrader generate_feedback` in `make demo`'s run on
  the example class), every notebook's: passed (ada), failed with a diagnosis (bo:
  softmax over the wrong axis), not started (dee); and graded unconfined (notebook
  03 in a course that opts out);
- the class report and its anonymous version, whole, whatever sections it holds;
- the Model Explorer, on trained and on random weights, after a prompt and a head are chosen;
- a release notebook in JupyterLab, run cell by cell as a student does (check
  messages, placeholders for figures not drawn yet), and the same notebook solved
  (passed checks, figures): only what the kit wrote is audited (outputs and
  rendered markdown); JupyterLab's own violations are printed, never counted.

Beyond axe: the explorer works with the keyboard alone (every control reached
by Tab, with a visible focus, and a head chosen with the keyboard updates the
grid's text description); the report and the explorer fit a 1280-px window at
200% zoom without scrolling sideways; every figure label meets AA contrast.
"""

from __future__ import annotations

import os
import json
import re
import shutil
from pathlib import Path

import pytest

from explorer.reference import reference_source
from explorer.server import start
from kit import nbgrader_cli
from kit.notebooks import ROOT
from tests.axe import AUDIT_RECORDS, TAGS, audit, require_axe
from tests.browser import chromium, lab_page, open_notebook, require_browser, run_all, running_lab, shown_cells

NOTEBOOK = "03_softmax_and_mix"  # the notebook with the most figures and checks of different kinds
FEEDBACK = {"passed": "ada", "failed with a diagnosis": "bo", "not started": "dee"}  # examples/class students
PROMPT = "the dog sees a red ball . the dog sees a red ball"
HEAD = (1, 2)  # the layer and head chosen in the explorer
# A 1280-px window at 200% zoom: 640 CSS px wide, two device pixels each.
ZOOMED = {"viewport": {"width": 640, "height": 450}, "device_scale_factor": 2}
# What the kit writes in JupyterLab: cell outputs and its rendered markdown.
KIT_IN_LAB = [".jp-OutputArea-output", ".jp-MarkdownCell .jp-RenderedMarkdown"]


@pytest.fixture(scope="module")
def audited(request) -> dict:
    """Page → the axe rules run on it; at the end, recorded for the count in the run's summary."""
    pages: dict[str, frozenset[str]] = {}
    yield pages
    if pages and getattr(request.config, "cache", None) is not None:  # the run's summary counts them (tests/conftest.py)
        worker = getattr(request.config, "workerinput", {}).get("workerid", "main")
        record = request.config.cache.mkdir(AUDIT_RECORDS) / f"{worker}-{os.getpid()}.json"
        record.write_text(json.dumps({page: sorted(rules) for page, rules in pages.items()}))


def _fail_on(found, what: str, audited: dict) -> None:
    audited[what] = found.rules
    print(found.report(what))
    assert not found.violations, found.report(what)


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


# ---------------------------------------------------------------- the pages, made as the kit makes them


@pytest.fixture(scope="module")
def unconfined_feedback(tmp_path_factory, copy_released) -> Path:
    """The feedback page of a student graded unconfined (a course that opts out, on a machine it
    finds no confinement on: KIT_CONFINEMENT=none), as tests/test_refusal.py makes it."""
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


@pytest.fixture(scope="module")
def feedback_pages(graded_class, unconfined_feedback) -> dict[str, Path]:
    """One feedback page of each kind, notebook 03's (the others: `every_feedback_page`)."""
    pages = {kind: graded_class.course / "feedback" / student / "attention" / f"{NOTEBOOK}.html"
             for kind, student in FEEDBACK.items()}
    assert "not started" in pages["not started"].read_text()
    assert "softmax over the wrong axis" in pages["failed with a diagnosis"].read_text()
    return {**pages, "graded unconfined": unconfined_feedback}


def every_feedback_page(graded_class, kind: str) -> list[Path]:
    """Every notebook's feedback page of the example student of `kind` (written answers with the grader's
    points and comments in 05 and 08)."""
    pages = sorted((graded_class.course / "feedback" / FEEDBACK[kind] / "attention").glob("*.html"))
    return [page for page in pages if page.name != "explorer.html"]


@pytest.fixture(scope="module")
def report_pages(graded_class, tmp_path_factory) -> dict[str, Path]:
    """`make demo`'s class report, and its anonymous version, written by kit.report's own functions
    (into a folder of this test's: the graded class is shared and read-only)."""
    from kit.report.build import course_directory
    from kit.report.charts import all_charts
    from kit.report.collect import collect
    from kit.report.page import render

    anonymous = tmp_path_factory.mktemp("report") / "anonymous.html"
    results = collect(course_directory(graded_class.course), "attention")
    anonymous.write_text(render(results, all_charts(results), anonymous=True), encoding="utf-8")
    return {"named": graded_class.course / "reports" / "attention" / "index.html", "anonymous": anonymous}


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


# ---------------------------------------------------------------- the audit


@pytest.mark.parametrize("kind", [*FEEDBACK, "graded unconfined"])
def test_does_a_students_feedback_page_pass_the_audit(page, feedback_pages, graded_class, audited, kind):
    pages = [feedback_pages[kind]] if kind == "graded unconfined" else every_feedback_page(graded_class, kind)
    assert kind == "graded unconfined" or len(pages) == 9, pages
    found = {}
    for path in pages:
        page.goto(path.as_uri())
        found[path.stem] = audit(page)
        audited[f"feedback page, {kind}, {path.stem}"] = found[path.stem].rules
    for notebook, result in found.items():
        print(result.report(f"feedback page, {kind}, {notebook}"))
    assert not any(r.violations for r in found.values()), \
        "\n".join(r.report(f"feedback page, {kind}, {notebook}") for notebook, r in found.items() if r.violations)


@pytest.mark.parametrize("version", ["named", "anonymous"])
def test_does_the_whole_class_report_pass_the_audit(page, report_pages, audited, version):
    page.goto(report_pages[version].as_uri())
    _fail_on(audit(page), f"class report, {version}", audited)  # every section the report holds


@pytest.mark.parametrize("weights", ["trained", "random"])
def test_does_the_explorer_pass_the_audit_after_a_prompt_and_a_head_are_chosen(page, explorer, audited, weights):
    from kit.report.charts import style

    _explore(page, explorer, weights)
    found = audit(page)
    _fail_on(found, f"explorer, {weights} weights", audited)
    # axe leaves the grids' SVG labels (it cannot tell their background) for a person: on the page's white,
    # each label's fill must meet 4.5:1.
    assert {v.rule for v in found.incomplete} <= {"color-contrast"}, found.report("explorer")
    fills = set(page.evaluate("() => [...document.querySelectorAll('svg text')].map(t => getComputedStyle(t).fill)"))
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)")
    for fill in fills:
        shade = style.luminance([int(c) / 255 for c in re.findall(r"\d+", fill)[:3]])
        assert 1.05 / (shade + 0.05) >= 4.5, f"an SVG label in {fill} on white"


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


def test_does_what_the_kit_writes_in_jupyterlab_pass_the_audit(browser, lab, audited):
    page = lab_page(browser, lab)
    try:
        found, own = {}, {}
        shown = _run_each_cell(page, f"release/{NOTEBOOK}.ipynb")
        text = "\n".join(cell["text"] for cell in shown)
        assert "not started" in text and "Figure not drawn yet" in text, text[:2000]
        found["release"] = audit(page, _kit_context(page))
        shown = run_all(page, f"solved/{NOTEBOOK}.ipynb")
        text = "\n".join(cell["text"] for cell in shown)
        assert any(cell["images"] for cell in shown) and "✓" in text
        assert all(mark == "✓ passed:" for mark in re.findall(r"[✓✗]\s*\S+", text)), text[:2000]
        alts = _figure_alts(page, f"[id='{page.evaluate('() => window.jupyterapp.shell.currentWidget.id')}'] "
                                  ".jp-OutputArea img")
        assert alts and all(re.search(r"\d\.\d", alt) for alt in alts), alts
        found["solved"] = audit(page, _kit_context(page))
        own = audit(page, {"exclude": _kit_context(page)["include"]})
    finally:
        page.close()
    print(own.report("JupyterLab's own (not counted)"))
    for what, result in found.items():
        audited[f"JupyterLab, {what} {NOTEBOOK}"] = result.rules
        print(result.report(f"JupyterLab, {what} {NOTEBOOK}"))
    assert not any(r.violations for r in found.values()), \
        "\n".join(r.report(f"JupyterLab, {what} {NOTEBOOK}") for what, r in found.items())


# ---------------------------------------------------------------- beyond the audit: keyboard, zoom, words, contrast

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


@pytest.mark.parametrize("what", ["class report", "explorer"])
def test_does_the_page_fit_a_1280px_window_at_200_percent_zoom(browser, report_pages, explorer, audited, what):
    page = browser.new_page(**ZOOMED)
    try:
        if what == "explorer":
            _explore(page, explorer, "trained")
            page.click("#table-details summary")  # the widest part: every weight, in a box of its own
        else:
            page.goto(report_pages["named"].as_uri())
        width, client = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width <= client, f"the {what} scrolls sideways at 200% zoom: {width} CSS px wide in {client}"
        _fail_on(audit(page), f"{what} at 200% zoom", audited)
    finally:
        page.close()


def _figure_alts(page, selector: str) -> list[str]:
    return page.evaluate("s => [...document.querySelectorAll(s)].map(i => i.getAttribute('alt') ?? '')", selector)


def test_does_every_figure_in_the_report_and_in_feedback_carry_its_numbers_in_words(page, report_pages,
                                                                                   feedback_pages):
    for version, path in report_pages.items():
        page.goto(path.as_uri())
        alts = _figure_alts(page, "img")
        assert len(alts) == 3 and all(re.search(r"\d", alt) and len(alt) > 60 for alt in alts), (version, alts)
    for kind, path in feedback_pages.items():
        page.goto(path.as_uri())
        assert all(re.search(r"\d", alt) for alt in _figure_alts(page, "img")), kind


def test_does_every_check_message_say_in_words_whether_it_passed(feedback_pages):
    for kind, path in feedback_pages.items():
        text = re.sub(r"<[^>]+>", "", path.read_text())
        marks = re.findall(r"[✓✗]\s*\S+", text)
        assert all(mark.endswith("passed:") for mark in marks), (kind, sorted(set(marks)))
        assert kind == "not started" or marks, kind


def test_does_every_label_on_a_coloured_cell_of_the_reports_heat_map_meet_aa_contrast():
    """The heat map writes each count on its cell in black or white: at least 4.5:1 on every colour of
    viridis (the notebooks' figures: tests/test_figures.py)."""
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
    from tests.axe import VERSION

    assert f"AXE_VERSION = {VERSION}\n" in (ROOT / "Makefile").read_text()
    assert len(TAGS) == 4
