"""Issue 20: a question set's history travels with its outcome. A set returned, revised and
adjudicated carries those events (the return's comment and marked fields, the revision's round, the
adjudication and its reason) in the validated export's review summary and in the curated release's
review block, by pseudonym, never by user name."""

from __future__ import annotations

import json

import pytest

from annotation.fields import item_fields
from annotation.inspection.services import inspection_adjudicate, inspection_return
from annotation.models import Assignment, Item
from annotation.outcomes.curation.build import build_curation
from annotation.rating.services.ratings import rating_submit
from cases.exporters import CurationRules
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from tests.annotation.builders import claim_and_submit
from tests.liveclin.builders import import_liveclin, liveclin_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def adjudicated(admin, physician_a, physician_b, inspector) -> Item:
    release = import_liveclin(1)
    study = liveclin_study(admin, [physician_a, physician_b], inspectors=[inspector])
    claim_and_submit(study, physician_a, "yes")
    claim_and_submit(study, physician_b, "no", comment="Dose absent from the report")
    item = Item.objects.get(study=study)
    returned = Assignment.objects.get(item=item, rater=physician_b)
    marked = item_fields(item)[0].id
    inspection_return(item=item, inspector=inspector, assignment=returned, comment="RETURN-MARKER: re-read Q1",
                      fields=[marked])
    returned.refresh_from_db()
    labels = {f.id: {"label": "yes", "comment": ""} for f in item_fields(item)}
    rating_submit(assignment=returned, rater=physician_b, labels=labels, seconds_spent=20)
    item.refresh_from_db()
    inspection_adjudicate(item=item, inspector=inspector, labels={f.id: "yes" for f in item_fields(item)},
                          reason="ADJUDICATION-MARKER: the dose is in table 2")
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED and item.revision.release_id == release.pk
    return item


def _kinds(events: list[dict]) -> list[str]:
    return [e["kind"] for e in events]


def _check(events: list[dict]) -> None:
    assert _kinds(events) == ["sent_to_inspection", "returned", "revised", "sent_to_inspection", "adjudicated"]
    returned = events[1]
    assert returned["reason"] == "RETURN-MARKER: re-read Q1" and returned["round"] == 2
    assert returned["fields"] and returned["actor"] == "R-inspector"
    adjudication = events[-1]
    assert adjudication["reason"] == "ADJUDICATION-MARKER: the dose is in table 2"
    assert set(adjudication["labels"].values()) == {"yes"}
    assert all(e["actor"] != "inspector" and e["actor"] != "physician_b" for e in events)


def test_the_validated_export_carries_the_sets_events(adjudicated):
    export = validated_export(release_review(adjudicated.revision.release))
    (record,) = [json.loads(line) for line in export.data.decode().splitlines()]
    _check(record["physician_review"]["events"])


def test_the_curated_release_carries_the_sets_events(adjudicated):
    built = build_curation(name="reviewed", release=adjudicated.revision.release, studies=[adjudicated.study],
                           rules=CurationRules(review_block=True), history_url=lambda pk: f"/review/items/{pk}/history/")
    (data,) = [d for name, d in built.files.items() if name.endswith(".jsonl")]
    (record,) = [json.loads(line) for line in data.decode().splitlines()]
    _check(record["physician_review"]["events"])
