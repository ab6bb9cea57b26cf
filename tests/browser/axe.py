"""axe-core in the browser tests (issue 11): zero critical and zero serious violations.

axe-core comes from the npm registry (tests/browser/package.json, pinned in package-lock.json),
installed by `.ci/run` with `npm ci --prefix tests/browser` into the git-ignored
tests/browser/node_modules; never from a CDN. Without it the accessibility tests skip with that
reason, except when MEDREVIEW_REQUIRE_AXE=1 (CI), where they fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("critical", "serious")


def axe_source() -> str:
    if not AXE.exists():
        message = "needs axe-core: npm ci --prefix tests/browser (see tests/browser/package.json)"
        if os.environ.get("MEDREVIEW_REQUIRE_AXE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def blocking_violations(page) -> list[str]:
    """Run axe on the page as it is now; one line per critical or serious violation and node.

    The page's Content Security Policy forbids inline scripts: open the page in a context made with
    `bypass_csp=True` (only the injection of axe needs it)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source())
    result = page.evaluate("""async () => {
        const r = await window.axe.run(document, {resultTypes: ["violations"]});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").split("\\n").slice(0, 2).join(" "))}));
    }""")
    lines = []
    for violation in result:
        if violation["impact"] in BLOCKING:
            lines.extend(f"{violation['impact']} {violation['id']} ({violation['help']}): {node}"
                         for node in violation["nodes"])
    return lines
