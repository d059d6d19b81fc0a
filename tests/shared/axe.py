"""axe-core, Deque's accessibility engine, run in a page that Playwright drives.

`make axe` (a prerequisite of `make test`) installs the pinned npm package into
.run/axe/ with npm; the audit injects its `axe.min.js` into each page and runs the
rules of WCAG 2.0 and 2.1 at levels A and AA. Without npm's copy a test skips
and says how to get it, except in CI (the CI environment variable set), where it fails.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from kit.notebooks import ROOT

VERSION = "4.14.1"  # the Makefile's AXE_VERSION: the one `make axe` installs
PACKAGE = ROOT / ".run" / "axe" / "node_modules" / "axe-core"
SCRIPT = PACKAGE / "axe.min.js"
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")  # WCAG 2.0 and 2.1, levels A and AA
AUDIT_RECORDS = "accessibility_audit"  # the pytest cache folder where each worker records its pages and rules


def require_axe() -> None:
    """Skip (fail under CI) unless `make axe` installed axe-core VERSION."""
    installed = json.loads((PACKAGE / "package.json").read_text())["version"] if SCRIPT.exists() else None
    if installed != VERSION:
        found = f"found {installed}" if installed else "not installed"
        message = (f"the accessibility audit needs axe-core {VERSION} in {PACKAGE.relative_to(ROOT)} ({found}): "
                   "run `make axe` (it needs npm)")
        if os.environ.get("CI"):
            pytest.fail(f"{message}; in CI it must run, not skip", pytrace=False)
        pytest.skip(message)


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]  # CSS selectors of the offending elements

    def __str__(self) -> str:
        shown = ", ".join(self.targets[:6]) + (f" and {len(self.targets) - 6} more" if len(self.targets) > 6 else "")
        return f"{self.rule} ({self.impact}): {self.help}: {shown}"


@dataclass(frozen=True)
class Audit:
    rules: frozenset[str]  # every rule axe ran (passed, violated, inapplicable or left for review)
    violations: tuple[Violation, ...]
    incomplete: tuple[Violation, ...]  # what axe could not decide (e.g. text over an image): for a person

    def report(self, what: str) -> str:
        lines = [f"{what}: {len(self.rules)} rules, {len(self.violations)} violated"]
        lines += [f"  {v}" for v in self.violations]
        lines += [f"  left for a person to review: {v}" for v in self.incomplete]
        return "\n".join(lines)


_RUN = """async ([context, tags]) => {
    const result = await axe.run(context ?? document, {runOnly: {type: 'tag', values: tags},
                                                       resultTypes: ['violations', 'incomplete']});
    const plain = list => list.map(r => ({rule: r.id, impact: r.impact ?? '', help: r.help,
                                         targets: r.nodes.map(n => n.target.join(' '))}));
    const ids = [...result.passes, ...result.violations, ...result.incomplete, ...result.inapplicable].map(r => r.id);
    return {rules: ids, violations: plain(result.violations), incomplete: plain(result.incomplete)};
}"""


def audit(page, context: dict | str | None = None) -> Audit:
    """Run axe's WCAG 2.1 A and AA rules on `page` (or on `context`: a selector, or axe's {include, exclude})."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(SCRIPT))
    found = page.evaluate(_RUN, [context, list(TAGS)])
    return Audit(frozenset(found["rules"]), _violations(found["violations"]), _violations(found["incomplete"]))


def _violations(items: list[dict]) -> tuple[Violation, ...]:
    return tuple(Violation(i["rule"], i["impact"], i["help"], tuple(i["targets"])) for i in items)
