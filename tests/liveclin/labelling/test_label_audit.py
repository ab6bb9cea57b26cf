"""The AI label audit (LiveClin App. J): the physician sees the image or table with its caption and
the AI's label, marks it correct or corrects it; a correction goes to inspection; the report gives
the AI's accuracy per label family with Wilson intervals."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from liveclin.labelling.reports import task_report
from liveclin.models import LabelAnswer, LabelDecision, LabelUnit
from tests.conftest import login
from tests.liveclin.labelling.builders import audit_task

pytestmark = pytest.mark.django_db


def units(task) -> dict[str, list[LabelUnit]]:
    """The task's units by family: two cases, each with a scenario image and a scenario table."""
    out: dict[str, list[LabelUnit]] = {}
    for unit in task.units.select_related("ai_label").order_by("order"):
        out.setdefault(unit.ai_label.target, []).append(unit)
    return out


def test_it_shows_the_item_its_caption_and_the_ai_label(client, admin, physician_a) -> None:
    task = audit_task(admin, [physician_a])
    table = units(task)["table"][0]
    html = login(client, physician_a).get(reverse("labelling:unit", args=[table.pk])).content.decode()
    assert "Table 1. Blood tests" in html and "Table of Serial Blood Test Results" in html
    assert "<table>" in html  # the table itself, rendered from its Markdown
    image = units(task)["image"][0]
    html = client.get(reverse("labelling:unit", args=[image.pk])).content.decode()
    assert "Figure 1. Radiograph" in html and "X-ray of the Knee (AP view)" in html


def test_it_resolves_a_label_marked_correct_and_sends_a_correction_to_inspection(
    client, admin, physician_a, inspector
) -> None:
    task = audit_task(admin, [physician_a], inspectors=[inspector])
    image, table = units(task)["image"][0], units(task)["table"][0]
    login(client, physician_a)
    assert client.post(reverse("labelling:unit", args=[image.pk]), {"verdict": "correct"}).status_code == 302
    response = client.post(reverse("labelling:unit", args=[table.pk]),
                           {"verdict": "edited", "value": "Table of Complete Blood Count"})
    assert response.status_code == 302
    image.refresh_from_db()
    table.refresh_from_db()
    assert (image.status, table.status) == (LabelUnit.Status.RESOLVED, LabelUnit.Status.INSPECTION)
    assert LabelAnswer.objects.get(unit=table).value == "Table of Complete Blood Count"
    # The inspector sees the physician's correction and the AI's label, and decides.
    page = login(client, inspector).get(reverse("labelling:unit_inspect", args=[table.pk]))
    assert "Table of Complete Blood Count" in page.content.decode()
    decided = client.post(reverse("labelling:unit_inspect", args=[table.pk]),
                          {"verdict": "edited", "value": "Table of Complete Blood Count", "reason": "Only a CBC."})
    assert decided.status_code == 302
    assert LabelDecision.objects.get(unit=table).value == "Table of Complete Blood Count"


@pytest.mark.parametrize(("data", "field"), [
    ({}, "Mark the label correct"), ({"verdict": "edited", "value": " "}, "Type the right label"),
    ({"verdict": "edited", "value": "Table of Serial Blood Test Results"}, "mark it correct instead"),
])
def test_it_refuses_an_incomplete_verdict_and_stores_nothing(client, admin, physician_a, data, field) -> None:
    task = audit_task(admin, [physician_a])
    table = units(task)["table"][0]
    response = login(client, physician_a).post(reverse("labelling:unit", args=[table.pk]), data)
    assert response.status_code == 400 and field in response.content.decode()
    assert not LabelAnswer.objects.exists()


def test_it_reports_the_ai_accuracy_per_family_with_wilson_intervals(client, admin, physician_a, inspector) -> None:
    # Four cases: 4 images all kept (4/4), 4 tables with one corrected (3/4); pooled 7/8.
    # Wilson 95% (z = 1.959964): 4/4 -> (0.510109, 1); 3/4 -> (0.300642, 0.954413); 7/8 -> (0.529112, 0.977583).
    task = audit_task(admin, [physician_a], inspectors=[inspector], cases=4)
    by_family = units(task)
    login(client, physician_a)
    for unit in by_family["image"] + by_family["table"][1:]:
        assert client.post(reverse("labelling:unit", args=[unit.pk]), {"verdict": "correct"}).status_code == 302
    corrected = by_family["table"][0]
    client.post(reverse("labelling:unit", args=[corrected.pk]), {"verdict": "edited", "value": "Table of CBC"})
    assert task_report(task)["compared"] == 7  # the correction awaits inspection
    login(client, inspector).post(reverse("labelling:unit_inspect", args=[corrected.pk]),
                                  {"verdict": "edited", "value": "Table of CBC", "reason": "A CBC only."})
    report = task_report(task)
    families = {f["family"]: f for f in report["families"]}
    assert (families["image"]["successes"], families["image"]["n"]) == (4, 4)
    assert families["image"]["ci"] == pytest.approx((0.510109, 1.0), abs=1e-6)
    assert (families["table"]["successes"], families["table"]["n"]) == (3, 4)
    assert families["table"]["ci"] == pytest.approx((0.300642, 0.954413), abs=1e-6)
    assert (report["all"]["successes"], report["all"]["n"]) == (7, 8)
    assert report["all"]["ci"] == pytest.approx((0.529112, 0.977583), abs=1e-6)
    assert report["corrections"] == [{"unit": corrected.pk, "family": "table", "ai_label": "Table of Serial Blood Test Results",
                                      "label": "Table of CBC", "source": "inspection"}]
    html = login(client, admin).get(reverse("labelling:task_report", args=[task.pk])).content.decode()
    assert "0.875" in html and "0.301–0.954" in html


def test_it_audits_over_the_api(admin, physician_a) -> None:
    task = audit_task(admin, [physician_a])
    image = units(task)["image"][0]
    api = APIClient()
    api.force_authenticate(physician_a)
    body = api.get(reverse("labelling_api:unit", args=[image.pk])).json()
    assert body["item"]["ai_label"] == "X-ray of the Knee (AP view)" and body["item"]["caption"] == "Figure 1. Radiograph"
    answered = api.post(reverse("labelling_api:unit_answer", args=[image.pk]), {"verdict": "correct"}, format="json")
    assert answered.status_code == 201 and answered.json()["status"] == "resolved"
    assert api.delete(reverse("labelling_api:unit_answer", args=[image.pk])).status_code == 204
    assert not LabelAnswer.objects.exists()


def test_it_guards_inspection_wrong_method_outsider_read_only_and_own_item(
    client, admin, physician_a, inspector, outsider, researcher
) -> None:
    task = audit_task(admin, [physician_a, inspector], inspectors=[inspector])
    table = units(task)["table"][0]
    login(client, inspector).post(reverse("labelling:unit", args=[table.pk]), {"verdict": "edited", "value": "Other"})
    url = reverse("labelling:unit_inspect", args=[table.pk])
    assert client.get(url).status_code == 403  # an inspector never decides an item they rated
    assert login(client, admin).get(url).status_code == 200
    assert client.put(url).status_code == 405
    assert login(client, outsider).get(url).status_code == 404
    assert client.get(reverse("labelling:task_inspection", args=[task.pk])).status_code == 404
    assert login(client, researcher).get(url).status_code == 403
    api = APIClient()
    api.force_authenticate(outsider)
    assert api.post(reverse("labelling_api:unit_decide", args=[table.pk]), {}, format="json").status_code == 404


def test_it_creates_a_task_from_the_command_line_and_names_a_missing_user(admin, physician_a) -> None:
    import io

    from django.core.management import CommandError, call_command

    from liveclin.models import LabelTask
    from tests.liveclin.labelling.builders import labelled_release

    labelled_release()
    out = io.StringIO()
    call_command("create_label_task", "Audit", "--kind", "audit", "--dataset", "LiveClin", "--release", "2025H1",
                 "--rater", "physician_a", stdout=out)
    task = LabelTask.objects.get(name="Audit")
    assert (task.units.count(), list(task.memberships.values_list("user__username", "role"))) == (10, [("physician_a", "rater")])
    with pytest.raises(CommandError, match="--rater: no user 'nobody'"):
        call_command("create_label_task", "Other", "--kind", "assignment", "--dataset", "LiveClin", "--release",
                     "2025H1", "--rater", "nobody")


def test_it_never_suggests_another_raters_correction_before_inspection(client, admin, physician_a, physician_b):
    task = audit_task(admin, [physician_a, physician_b], raters_per_unit=2)
    tables = units(task)["table"]
    login(client, physician_a).post(reverse("labelling:unit", args=[tables[0].pk]),
                                    {"verdict": "edited", "value": "SECRET-CORRECTION"})
    assert "SECRET-CORRECTION" in client.get(reverse("labelling:unit", args=[tables[1].pk])).content.decode()
    for unit in tables:
        html = login(client, physician_b).get(reverse("labelling:unit", args=[unit.pk])).content.decode()
        assert "SECRET-CORRECTION" not in html
        body = APIClient()
        body.force_authenticate(physician_b)
        assert "SECRET-CORRECTION" not in body.get(reverse("labelling_api:unit", args=[unit.pk])).content.decode()
