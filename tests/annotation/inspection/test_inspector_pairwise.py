"""Issue 20: a pairwise item is inspected as each rater saw it. Two raters saw the two responses in
opposite orders and both preferred the same model (one clicked "A", the other "B"): the inspection
page, its API and the long-format label export name the model each rater preferred and the order
that rater saw; the final label is chosen in the same canonical terms."""

from __future__ import annotations

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Assignment, FinalLabel, Item
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import api_client_for, inspect_and_confirm, running_study
from tests.conftest import login
from tests.factories import make_case, make_response

pytestmark = pytest.mark.django_db
FIELD = "pairwise-preference|"


@pytest.fixture
def pair(admin, physician_a, physician_b, inspector) -> Item:
    revision = make_case()
    make_response(revision, model_name="model-alpha", text="Alpha says rest.")
    make_response(revision, model_name="model-beta", text="Beta says antibiotics.")
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                          tasks=["pairwise-preference"], kind="pair", inspect_all=True)
    a = assignment_claim_next(study=study, rater=physician_a)
    b = assignment_claim_next(study=study, rater=physician_b)
    Assignment.objects.filter(pk=a.pk).update(pair_order="ab")
    Assignment.objects.filter(pk=b.pk).update(pair_order="ba")
    a.refresh_from_db()
    b.refresh_from_db()
    item = Item.objects.get(pk=a.item_id)
    assert item.response.model_name == "model-alpha"
    # physician_a saw alpha first and clicked A; physician_b saw beta first and clicked B (= alpha).
    rating_submit(assignment=a, rater=physician_a, labels={FIELD: {"label": "A"}}, seconds_spent=5)
    rating_submit(assignment=b, rater=physician_b, labels={FIELD: {"label": "B"}}, seconds_spent=5)
    item.refresh_from_db()
    assert item.status == Item.Status.INSPECTION
    return item


def test_the_page_names_the_model_each_rater_preferred_and_the_order_they_saw(client, pair, inspector):
    page = login(client, inspector).get(reverse("annotation:inspect", args=[pair.pk])).content.decode()
    assert page.count("prefers model-alpha") == 2
    assert "A is better" not in page and "B is better" not in page
    assert "saw model-alpha first" in page and "saw model-beta first" in page
    assert "The raters saw the responses in different orders" in page
    # The final label is chosen in canonical terms: by model.
    assert ">Prefers model-alpha</option>" in page and ">Prefers model-beta</option>" in page


def test_the_final_label_chosen_by_model_is_stored_canonically(client, pair, inspector):
    login(client, inspector)
    response = inspect_and_confirm(client, pair, {"action": "adjudicate", "reason": "Beta is right",
                                                  f"final:{FIELD}": "B"})
    assert response.status_code == 302
    assert FinalLabel.objects.get(item=pair).label == "B"  # item.response_b: model-beta


def test_the_api_names_the_model_each_rater_preferred(pair, inspector):
    body = api_client_for(inspector).get(reverse("annotation_api:inspection_detail", args=[pair.pk])).json()
    cells = body["comparisons"][0]["cells"]
    assert [(c["pair_order"], c["latest_label"], c["preferred_model"]) for c in cells] == [
        ("ab", "A", "model-alpha"), ("ba", "A", "model-alpha")]
    assert body["pair_models"] == {"A": "model-alpha", "B": "model-beta"}


def test_the_label_export_carries_both_models_and_the_order_each_rater_saw(pair):
    out = StringIO()
    call_command("export_labels", "--study", str(pair.study_id), "--format", "csv", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    ratings = [r for r in rows if r["kind"] == "rating"]
    assert [(r["rater"], r["label"], r["model_a"], r["model_b"], r["order_shown"], r["preferred_model"])
            for r in ratings] == [
        ("R-physician_a", "A", "model-alpha", "model-beta", "ab", "model-alpha"),
        ("R-physician_b", "A", "model-alpha", "model-beta", "ba", "model-alpha"),
    ]
    final = next(r for r in rows if r["kind"] == "final")
    assert (final["model_a"], final["model_b"], final["order_shown"]) == ("model-alpha", "model-beta", "")
