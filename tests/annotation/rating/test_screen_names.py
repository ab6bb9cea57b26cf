"""Issue 21: one numbering and human names on the physician's screens.

Every error names a field as the screen badges it; the undo bar, page titles and the Done list name
an item by its title (the dataset's case id), never by an internal key such as `case:5`; several
responses to one case are told apart.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from annotation.fields import field_titles, item_fields
from annotation.models import Item
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import (
    claim_and_submit,
    form_data,
    labels_for,
    make_running_study,
    running_study,
)
from tests.conftest import login
from tests.factories import make_case, make_release, make_response

INTERNAL_KEY = re.compile(r"\b(case|response|pair|qs|criterion|mcq|axis):\d+")


class _Text(HTMLParser):
    """What a person reads: text nodes (not scripts or styles) and the page title, no attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _read(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3)


def test_it_names_a_field_in_an_error_as_the_screen_badges_it(client, study, physician_a):
    a = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(a, {"narrative-quality": "2", "criterion-validity": "agree"})
    fields = item_fields(a.item)
    missing = fields[2]  # the second criterion, badge 3 on the screen
    labels[missing.id]["label"] = ""
    page = login(client, physician_a).post(reverse("annotation:rate", args=[a.pk]), form_data(labels))
    assert page.status_code == 400
    html = page.content.decode()
    assert re.search(r'id="field-2".*?<span class="field-num" aria-hidden="true">3</span>', html, re.S)
    assert "Field 3, validity: a label is required" in html
    assert "Criterion 2" not in html


def test_it_numbers_field_titles_by_screen_position(study, physician_a):
    a = assignment_claim_next(study=study, rater=physician_a)
    titles = list(field_titles(item_fields(a.item)).values())
    assert titles == ["Field 1, narrative and query quality", "Field 2, validity", "Field 3, validity",
                      "Field 4, validity"]


def test_it_shows_no_internal_key_where_a_physician_reads(client, study, physician_a):
    first = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    nxt = assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    page = client.get(reverse("annotation:rate", args=[nxt.pk])).content.decode()
    text = _read(page)
    case_id = first.item.revision.case.external_id
    assert f"reopens “Case {case_id}” for changes" in text  # the undo bar
    assert re.search(r"<title>Case [^<]+ · Validation study", page)
    for url in (reverse("annotation:rate", args=[nxt.pk]), reverse("annotation:rate", args=[first.pk]),
                reverse("annotation:physician_dashboard")):
        assert not INTERNAL_KEY.search(_read(client.get(url).content.decode())), url


def test_it_tells_apart_responses_to_one_case(client, admin, physician_a):
    revision = make_case(release=make_release(), external_id="LMB-D002")
    for model in ("model-a", "model-b", "model-c"):
        make_response(revision, model_name=model)
    study = running_study(admin, raters=[physician_a], tasks=["grader-reliability"], kind="response",
                          raters_per_item=1)
    for _ in range(3):
        claim_and_submit(study, physician_a)
    page = login(client, physician_a).get(reverse("annotation:physician_dashboard")).content.decode()
    titles = re.findall(r"A response to case LMB-D002 \(item \d+\)", _read(page))
    assert len(titles) == 3 and len(set(titles)) == 3
    assert "model-" not in _read(page)  # raters stay blind to the model
    assert Item.objects.filter(study=study).count() == 3
