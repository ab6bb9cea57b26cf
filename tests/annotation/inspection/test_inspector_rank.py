"""Senior inspection: a study's minimum inspector rank (attending < associate chief < chief), and an
inspector never decides an item they rated; enforced by the services, the pages and the API (403,
nothing written)."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Rank, Role
from annotation.inspection.services import inspection_accept
from annotation.models import FinalLabel, Inspection, Item, ReviewEvent, StudyMember
from annotation.studies.services import ItemSelection, study_create
from tests.annotation.builders import claim_and_submit, make_running_study
from tests.conftest import make_user
from tests.liveclin.builders import SENIOR, import_liveclin, liveclin_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def junior(db):
    return make_user("junior", role=Role.INSPECTOR, rank=Rank.ATTENDING)


@pytest.fixture
def item(admin, physician_a, physician_b, inspector, junior) -> Item:
    import_liveclin(1)
    study = liveclin_study(admin, [physician_a, physician_b], inspectors=[inspector], min_inspector_rank=SENIOR)
    # Adding the junior is refused now (test_inspector_rank_at_add.py); a membership from before that
    # rule must still not let them decide.
    StudyMember.objects.create(study=study, user=junior, role=StudyMember.Role.INSPECTOR)
    claim_and_submit(study, physician_a, "yes")
    claim_and_submit(study, physician_b, "yes")
    item = Item.objects.get(study=study)
    assert item.status == Item.Status.INSPECTION
    return item


def nothing_written(item: Item) -> bool:
    item.refresh_from_db()
    return (item.status == Item.Status.INSPECTION and not Inspection.objects.exists()
            and not FinalLabel.objects.exists()
            and not ReviewEvent.objects.filter(kind__in=["accepted", "adjudicated", "returned"]).exists())


def test_the_rank_order_is_attending_associate_chief_chief(admin):
    with pytest.raises(ValidationError) as error:
        study_create(name="x", created_by=admin, task_slugs=["narrative-quality"], selection=ItemSelection(kind="case"),
                     min_inspector_rank="professor")
    assert "min_inspector_rank" in error.value.message_dict


def test_an_inspector_below_the_rank_gets_403_everywhere_and_nothing_is_written(client, item, junior):
    with pytest.raises(PermissionDenied):
        inspection_accept(item=item, inspector=junior)
    client.force_login(junior)
    page = client.get(reverse("annotation:inspect", args=[item.pk]))
    assert page.status_code == 403
    posted = client.post(reverse("annotation:inspect", args=[item.pk]), {"action": "accept", "comment": ""})
    assert posted.status_code == 403
    api = APIClient()
    api.force_authenticate(junior)
    assert api.post(reverse("annotation_api:inspection_accept", args=[item.pk]), {"comment": ""}).status_code == 403
    assert api.get(reverse("annotation_api:inspection_detail", args=[item.pk])).status_code == 403
    assert nothing_written(item)


def test_the_senior_inspector_may_decide(item, inspector):
    inspection_accept(item=item, inspector=inspector)
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED


def test_an_inspector_never_decides_an_item_they_rated(admin, physician_a, inspector, client):
    study = make_running_study(admin, [physician_a, inspector], inspectors=[inspector], inspect_all=True)
    claim_and_submit(study, physician_a)
    claim_and_submit(study, inspector)
    item = Item.objects.get(study=study)
    with pytest.raises(PermissionDenied):
        inspection_accept(item=item, inspector=inspector)
    api = APIClient()
    api.force_authenticate(inspector)
    assert api.post(reverse("annotation_api:inspection_accept", args=[item.pk]), {"comment": ""}).status_code == 403
    client.force_login(inspector)
    assert client.post(reverse("annotation:inspect", args=[item.pk]), {"action": "accept"}).status_code == 403
    assert nothing_written(item)


def test_the_senior_inspector_reads_both_views_with_the_privileged_source(client, item, inspector):
    client.force_login(inspector)
    page = client.get(reverse("annotation:inspect", args=[item.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "REPORT-MARKER-1" in text and "CAPTION-MARKER-1" in text
    api = APIClient()
    api.force_authenticate(inspector)
    body = api.get(reverse("annotation_api:inspection_detail", args=[item.pk])).json()
    assert body["item"]["question_set"]["case_report"].startswith("# Case report 1")
