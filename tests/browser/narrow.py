"""Pages at phone width: nothing sticks out sideways and axe-core finds nothing blocking (issues 11, 24)."""

from __future__ import annotations

from typing import Any

from tests.browser.axe import blocking_violations

PHONE = {"width": 390, "height": 844}

# Boxes wider than the viewport, and tables whose overflow is not held by a scrolling ancestor.
MEASURE = """() => {
  const viewport = document.documentElement.clientWidth;
  const scrolls = (el) => { for (let e = el.parentElement; e; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll') return e; } return null; };
  const loose = [...document.querySelectorAll('table')].filter(t => {
      const box = scrolls(t); return t.getBoundingClientRect().right > viewport + 1 && !box; })
    .map(t => (t.closest('[id]') || t).id || t.className || 'table');
  // What sticks out (deepest first), to name in a failure: tag, class and the start of its text.
  const out = [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > viewport + 1
      && !scrolls(e) && ![...e.children].some(c => c.getBoundingClientRect().right > viewport + 1))
    .slice(0, 4).map(e => `${e.tagName.toLowerCase()}.${e.className}: ${(e.textContent || '').trim().slice(0, 40)}`);
  return {page: document.documentElement.scrollWidth, viewport, loose, out};
}"""


def narrow_findings(page: Any, base_url: str, pages: dict[str, str]) -> tuple[dict, dict]:
    """Opens each page (name -> path) in `page`: the ones wider than the viewport, and the ones with
    blocking axe-core violations (a box that scrolls must be reachable by keyboard, and so on)."""
    wide, inaccessible = {}, {}
    for name, path in pages.items():
        response = page.goto(f"{base_url}{path}")
        assert response.status == 200, (name, response.status)
        page.wait_for_load_state("networkidle")
        found = page.evaluate(MEASURE)
        if found["page"] > found["viewport"] or found["loose"]:
            wide[name] = found
        if violations := blocking_violations(page):
            inaccessible[name] = violations
    return wide, inaccessible
