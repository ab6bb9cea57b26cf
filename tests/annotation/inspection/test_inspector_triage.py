"""Issue 11: the inspector's triage queue and the way from one disagreement to the next."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.fields import item_fields
from annotation.models import Assignment, Item
from tests.annotation.builders import disagree, inspect_and_confirm, make_running_study
from tests.conftest import login


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3)


def test_the_queue_says_why_each_item_waits_and_which_fields_differ(client, study, physician_a, physician_b,
                                                                    inspector):
    item, _a, _b = disagree(study, physician_a, physician_b)
    response = login(client, inspector).get(reverse("annotation:inspector_dashboard"))
    [row] = response.context["pending_rows"]
    assert row.item.pk == item.pk
    assert row.reasons == ["disagreement"] and row.reason_labels == ["Disagreement"]
    assert row.differing == 1 and row.differing_tasks == [("Patient narrative & query quality", 1)]
    assert sorted(row.raters) == sorted(u.get_full_name() or u.get_username() for u in (physician_a, physician_b))
    assert row.rounds == 1 and row.since is not None
    page = response.content.decode()
    assert "1 field differs" in page and "Disagreement" in page


def test_the_queue_filters_by_reason_and_task(client, study, physician_a, physician_b, inspector):
    disagree(study, physician_a, physician_b)
    login(client, inspector)
    url = reverse("annotation:inspector_dashboard")
    assert len(client.get(url, {"reason": "disagreement"}).context["pending_rows"]) == 1
    assert client.get(url, {"reason": "sampled"}).context["pending_rows"] == []
    assert len(client.get(url, {"task": "criterion-validity"}).context["pending_rows"]) == 1
    assert client.get(url, {"task": "likert-medic"}).context["pending_rows"] == []
    assert client.get(url, {"study": str(study.pk + 1000)}).context["pending_rows"] == []
    assert client.get(url, {"sort": "differ", "reason": "nonsense"}).status_code == 200


def test_after_an_action_the_inspector_goes_on_to_the_next_disagreement(client, study, physician_a, physician_b,
                                                                       inspector):
    first, _a, _b = disagree(study, physician_a, physician_b)
    second, _c, _d = disagree(study, physician_a, physician_b)
    login(client, inspector)
    data = {"action": "adjudicate", "reason": "Guideline 3", "final:narrative-quality|": "2"}
    data.update({f"final:{f.id}": "agree" for f in item_fields(first) if f.task.slug == "criterion-validity"})
    response = inspect_and_confirm(client, first, data)
    assert response.status_code == 302
    assert response["Location"] == reverse("annotation:inspect", args=[second.pk])
    first.refresh_from_db()
    assert first.status == Item.Status.RESOLVED


def test_a_failed_adjudication_keeps_what_the_inspector_typed(client, study, physician_a, physician_b, inspector):
    item, _a, _b = disagree(study, physician_a, physician_b)
    response = login(client, inspector).post(
        reverse("annotation:inspect", args=[item.pk]),
        {"action": "adjudicate", "reason": "Per the 2024 guideline", "final:narrative-quality|": "1"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Per the 2024 guideline</textarea>" in page
    assert "a final label is required" in page and "Field 2, validity" in page
    assert '<option value="1" selected>' in page


def test_the_return_form_preselects_nobody_and_marks_fields_on_the_annotators_screen(
    client, study, physician_a, physician_b, inspector
):
    item, a, _b = disagree(study, physician_a, physician_b)
    login(client, inspector)
    page = client.get(reverse("annotation:inspect", args=[item.pk])).content.decode()
    assert f'name="assignment" value="{a.pk}" checked' not in page
    assert "Fields to look at" in page
    response = inspect_and_confirm(client, item, {
        "action": "return", "assignment": a.pk, "comment": "Look at the narrative again",
        "fields": ["narrative-quality|", "not-a-field|x"],
    })
    assert response.status_code == 302
    a.refresh_from_db()
    assert a.state == Assignment.State.RETURNED
    rater_page = login(client, physician_a).get(reverse("annotation:rate", args=[a.pk]))
    assert rater_page.context["return_fields"] == ["narrative-quality|"]
    page = rater_page.content.decode()
    assert page.count("The inspector asks you to look at this field.") == 1
    assert 'data-field-id="narrative-quality|"' in page and "return-marked" in page


def test_a_revision_back_is_named_as_such_in_the_queue(client, study, physician_a, physician_b, inspector):
    from annotation.inspection.services import inspection_return
    from annotation.rating.services.ratings import rating_submit
    from tests.annotation.builders import labels_for

    item, a, _b = disagree(study, physician_a, physician_b)
    inspection_return(item=item, inspector=inspector, assignment=a, comment="Look again")
    a.refresh_from_db()
    rating_submit(assignment=a, rater=physician_a, labels=labels_for(a, {"narrative-quality": "0",
                                                                         "criterion-validity": "agree"}),
                  seconds_spent=5)
    rows = login(client, inspector).get(reverse("annotation:inspector_dashboard")).context["pending_rows"]
    assert [(row.item.pk, row.reasons) for row in rows] == [(item.pk, ["revised"])]
    assert [str(label) for label in rows[0].reason_labels] == ["Revision back"]
