"""The rating page's sentences with a number in them read whole in both languages (no sentence built
from translated words): the list's "and N earlier submitted items" and the item's round."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import claim_and_submit, make_running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "earlier", "round_text"), [
    ("en", "and 2 earlier submitted items.", "round 2"),
    ("zh-hans", "以及之前提交的 2 个条目。", "第 2 轮"),
])
def test_it_says_how_many_earlier_items_and_the_round_as_whole_sentences(client, admin, physician_a, physician_b,
                                                                          language, earlier, round_text):
    study = make_running_study(admin, [physician_a, physician_b], cases=20)
    for _ in range(17):  # the list shows the latest 15 and counts the rest
        claim_and_submit(study, physician_a)
    assignment = assignment_claim_next(study=study, rater=physician_a)
    Assignment.objects.filter(pk=assignment.pk).update(round=2)  # as after a return for revision
    login(client, physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk]), HTTP_ACCEPT_LANGUAGE=language)
    text = page.content.decode()
    assert earlier in text
    assert round_text in text
