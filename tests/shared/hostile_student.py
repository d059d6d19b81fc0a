"""A student whose every answer is written to act in a grader's or a student's page, and whose messages are long,
odd and hostile: the release's notebooks with each written answer full of markup (a script, event handlers, an
iframe, an object, a style, a `javascript:` link, an SVG onload, a fence broken out of, a MathJax link) and each
exercise answered by code that raises or returns what a page might take for markup, in colours, right to left,
in one word of thousands of letters, under an exception class named in HTML, with a line of code hundreds of
characters long.

Everything that would act sets `window.__pwned` (or `parent.__pwned`), or opens a dialog: `ACTED` reads what a
page shows of it. tests/browser/test_accessibility.py audits the pages made of this student, tests/notebooks/test_written_answers.py
opens them as the grader and the student do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kit.notebooks import ROOT

STUDENT = "mallory"
MARKUP = "\n".join([
    "<script>window.__pwned = 'script'; alert('script')</script>",
    '<img src="x" onerror="window.__pwned = \'onerror\'; alert(\'onerror\')">',
    "<svg onload=\"window.__pwned = 'svg'\"><circle r=\"9\"/></svg>",
    '<iframe src="about:blank" onload="window.__pwned = \'iframe\'" title="hostile"></iframe>',
    "<object data=\"data:text/html,<script>parent.__pwned = 'object'</script>\"></object>",
    "<embed src=\"data:text/html,<script>parent.__pwned = 'embed'</script>\">",
    "<style>body { display: none !important } * { color: #fff !important; background: #fff !important }</style>",
    '<link rel="stylesheet" href="data:text/css,body{display:none}">',
    '<meta http-equiv="refresh" content="0; url=javascript:window.__pwned=\'meta\'">',
    "<base href=\"javascript:window.__pwned='base'//\">",
    "[a link to click](javascript:window.__pwned='link') and <a href=\"javascript:window.__pwned='a'\">another</a>",
    "<details open ontoggle=\"window.__pwned = 'ontoggle'\"><summary>open me</summary>x</details>",
    "<input autofocus onfocus=\"window.__pwned = 'onfocus'\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned = 'mutation'\"></style></mglyph>",
    "$\\href{javascript:window.__pwned='mathjax'}{maths}$",
    "</code></pre><script>window.__pwned = 'breakout'</script>",
    "```",
    "</code></pre><img src=x onerror=\"window.__pwned = 'fence'\">",
    "```",
    "<!-- a comment --><script>window.__pwned = 'after a comment'</script>",
])
ODD = ("\x1b[37;47mwhite on white\x1b[0m \u202eright to left\u202c zero\u200bwidth " + "W" * 2500
       + " \U0001f600 e\u0301\u0301\u0301 " + "\t tab\n" * 3)
# An answer of each kind, in turn: a long, odd message with markup in it; "not started" in the student's own words;
# markup returned as the answer; an exception class named in HTML; a line of code hundreds of characters long.
BODIES = [
    f"raise ValueError({json.dumps('<script>window.__pwned = ' + repr('message') + '</script> ' + ODD)})",
    f"raise NotImplementedError({json.dumps('<iframe src=about:blank></iframe> started? no: ' + 'Z' * 3000)})",
    "return " + json.dumps("<script>window.__pwned = 'returned'</script><img src=x onerror=alert(1)>" * 40),
    "raise type('Oh<img src=x onerror=alert(1)>no', (Exception,), {})(" + json.dumps(MARKUP) + ")",
    "x = [" + ", ".join(f"'{'<b>%d</b>' % i}'" for i in range(120)) + "]  # " + "a very long line " * 30
    + "\n    raise RuntimeError(''.join(x))",
]
WRITTEN = MARKUP + "\n\n" + ODD + "\n\nAnd an answer in words, at the end: attention has no notion of trust."


def write_submission(folder: Path) -> Path:
    """The student's nine notebooks in `folder`, as handed in; `folder`."""
    release = ROOT / "assignments" / "attention"
    folder.mkdir(parents=True, exist_ok=True)
    turn = 0
    for path in sorted(release.glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        for cell in notebook["cells"]:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell.get("id", "").endswith("-answer"):
                cell["source"] = WRITTEN
            elif cell["metadata"].get("nbgrader", {}).get("solution"):
                cell["source"], turn = _answered(source, turn), turn + 1
        (folder / path.name).write_text(json.dumps(notebook))
    return folder


def _answered(stub: str, turn: int) -> str:
    """The stub with its `raise NotStarted()` replaced: a function's body by BODIES[turn], a plain answer
    (a name given a value) by markup."""
    indent = re.search(r"^([ \t]*)raise NotStarted\(\)", stub, re.M).group(1)
    if indent:
        body = "\n".join(indent + line.lstrip() for line in BODIES[turn % len(BODIES)].split("\n"))
    else:
        name = re.search(r"\b([A-Z_][A-Z_0-9]*) = ", stub).group(1)
        body = f"{name} = {json.dumps(MARKUP)}"
    return stub[:stub.rindex(f"{indent}raise NotStarted()")] + body


# What a page shows of the markup having acted: anything set, a frame, an element the student's markup made.
ACTED = """() => {
    const frames = [...document.querySelectorAll('iframe, frame, object, embed')].length;
    const handlers = [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(
        a => a.value.includes('__pwned') || (a.name.startsWith('on') && a.value.includes('alert'))));
    const links = [...document.querySelectorAll('[href^="javascript:" i], [src^="javascript:" i], base')];
    return {pwned: window.__pwned ?? null, frames, handlers: handlers.map(e => e.outerHTML.slice(0, 120)),
            links: links.map(e => e.outerHTML.slice(0, 120)), hidden: getComputedStyle(document.body).display === 'none'};
}"""
