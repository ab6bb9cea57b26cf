"""Issue 9, finding 3: an inspector who is also a rater on an item cannot open its inspection view
(page or API) while the item is still open, so they never read the other rater's labels and
comments before submitting their own. Once the item reaches inspection, they may."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Item
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import labels_for, make_cases, running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db
SECRET = "PHYSICIAN-A-PRIVATE-COMMENT"


@pytest.fixture
def shared_item(admin, physician_a, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, inspector], inspectors=[inspector],
                          tasks=["narrative-quality"], raters_per_item=2)
    mine = assignment_claim_next(study=study, rater=inspector)
    theirs = assignment_claim_next(study=study, rater=physician_a)
    assert mine.item_id == theirs.item_id
    rating_submit(assignment=theirs, rater=physician_a, labels=labels_for(theirs, "2", SECRET),
                           seconds_spent=20)
    return mine


def urls(item_id: int) -> tuple[str, str]:
    return (reverse("annotation:inspect", args=[item_id]),
            reverse("annotation_api:inspection_detail", kwargs={"pk": item_id}))


def test_the_inspection_view_stays_closed_to_a_rater_of_the_open_item(shared_item, inspector, client) -> None:
    assert Item.objects.get(pk=shared_item.item_id).status == Item.Status.OPEN
    page_url, api_url = urls(shared_item.item_id)
    page = login(client, inspector).get(page_url)
    assert page.status_code in (403, 404) and SECRET not in page.content.decode()
    api = APIClient()
    api.force_authenticate(inspector)
    answer = api.get(api_url)
    assert answer.status_code in (403, 404) and SECRET not in answer.content.decode()


def test_the_inspection_view_opens_once_the_item_reaches_inspection(shared_item, inspector, client) -> None:
    rating_submit(assignment=shared_item, rater=inspector, labels=labels_for(shared_item, "0", "mine"),
                           seconds_spent=20)
    item = Item.objects.get(pk=shared_item.item_id)
    assert item.status == Item.Status.INSPECTION  # the two labels disagree
    page_url, api_url = urls(item.pk)
    assert login(client, inspector).get(page_url).status_code == 200
    api = APIClient()
    api.force_authenticate(inspector)
    assert api.get(api_url).status_code == 200


def test_an_inspector_who_does_not_rate_the_item_may_look_while_it_is_open(
    admin, physician_a, physician_b, inspector, client
) -> None:
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector], tasks=["narrative-quality"])
    claimed = assignment_claim_next(study=study, rater=physician_a)
    page_url, _ = urls(claimed.item_id)
    assert login(client, inspector).get(page_url).status_code == 200
