"""Issue 21: phones. On every rating page kind (the demo's studies: LiveMedBench case, grader
reliability, LiveClin question set, MEDIC Likert, pairwise) at 360, 390 and 430 px, with a mouse and
with touch: no sideways scroll, choices stacked full width below 480 px (no choice overlaps
another), and on touch no keyboard hint or keyboard help card."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.services import study_add_members
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO_STUDIES = [
    "Demo: LiveMedBench human validation",
    "Demo: grader reliability",
    "Demo: LiveClin question sets",
    "Demo: MEDIC Likert axes",
    "Demo: pairwise preference",
]
WIDTHS = (360, 390, 430)
LAYOUT = """() => {
  const doc = document.documentElement;
  const choices = [...document.querySelectorAll('#rating-form .choices')].map(group => {
    const boxes = [...group.querySelectorAll('label.choice')].map(c => c.getBoundingClientRect());
    const width = group.getBoundingClientRect().width;
    let overlap = false;
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (x > 1.5 && y > 1.5) overlap = true;
    }
    return {narrowest: Math.min(...boxes.map(b => b.width)) / width, overlap,
            clipped: [...group.querySelectorAll('.choice-label')].some(l => l.scrollWidth > l.clientWidth + 1)};
  });
  const visible = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length) &&
                        getComputedStyle(el).visibility !== 'hidden';
  return {
    scroll: doc.scrollWidth, inner: window.innerWidth,
    choices,
    kbd: [...document.querySelectorAll('kbd')].filter(visible).length,
    help: !!document.querySelector('#shortcut-help') && visible(document.querySelector('#shortcut-help')),
  };
}"""


@pytest.fixture
def context_for(page_in_context):
    def make(touch: bool):
        options: dict = {"viewport": {"width": 390, "height": 844}}
        if touch:
            options.update(device_scale_factor=3, is_mobile=True, has_touch=True)
        return page_in_context(**options)

    return make


@pytest.mark.parametrize("device", ["mouse", "touch"])
def test_it_fits_every_rating_page_kind_on_a_phone(live_server, context_for, device):
    call_command("load_demo", stdout=StringIO())
    admin = make_user("phone_admin", role="admin", specialties=[], languages=[])
    rater = make_user("phone_rater", role="physician")
    claims = []
    for name in DEMO_STUDIES:
        study = Study.objects.get(name=name)
        study_add_members(study=study, users=[rater], role=StudyMember.Role.RATER, actor=admin)
        claim = assignment_claim_next(study=study, rater=rater)
        assert claim is not None, name
        claims.append((name, claim))
    touch = device == "touch"
    page = context_for(touch)
    sign_in(page, live_server, "phone_rater", PASSWORD)
    problems = []
    for name, claim in claims:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 844})
            page.goto(f"{live_server.url}/review/assignments/{claim.pk}/")
            seen = page.evaluate(LAYOUT)
            where = f"{name} at {width} px ({device})"
            if seen["scroll"] > seen["inner"]:
                problems.append(f"{where}: page {seen['scroll']} px wide")
            for i, group in enumerate(seen["choices"]):
                if group["overlap"]:
                    problems.append(f"{where}: field {i + 1}: choices overlap")
                if group["narrowest"] < 0.95:
                    problems.append(f"{where}: field {i + 1}: choices not stacked full width")
                if group["clipped"]:
                    problems.append(f"{where}: field {i + 1}: a choice's label is cut")
            if touch and (seen["kbd"] or seen["help"]):
                problems.append(f"{where}: {seen['kbd']} keyboard hints shown, help card shown: {seen['help']}")
    assert not problems, "\n".join(problems)
