"""Issue 20: a study's options are visible and its Judge run fixed. `show_prescreen`,
`min_inspector_rank` and the Judge run the quality check uses are on the study page, in the study
API, on the release's quality report and in the validated export's manifest. The run is pinned when
the study starts; a later run is offered, never swapped in silently; pinning a run that adds a flag
sends a set decided before the flag existed back to inspection."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.inspection.selectors import inspector_queue
from annotation.inspection.services import inspection_accept
from annotation.models import FinalLabel, Item, ReviewEvent
from cases.services import release_import
from graders.models import GraderRun
from liveclin.quality.loading import release_review
from liveclin.quality.rules import PENDING, VALIDATED, outcome
from tests.annotation.builders import api_client_for, claim_and_submit
from tests.conftest import login
from tests.liveclin.builders import SENIOR, import_liveclin, jsonl, judge_block, liveclin_study

pytestmark = pytest.mark.django_db


def second_judge_run(*, flags_set_1: bool) -> GraderRun:
    report = release_import(fmt="liveclin-judge", data=jsonl([{"pmc": "PMC-QC-1", "judge": [
        judge_block(not flags_set_1, why="SECOND-RUN-MARKER"), judge_block()]}]),
        file_name="judge_again.jsonl", dataset_name="LiveClin", release_label="2025H1-judge-2", grader_model="o4")
    assert report.status == "imported", report.errors
    return GraderRun.objects.latest("pk")


@pytest.fixture
def accepted(admin, physician_a, physician_b, inspector) -> Item:
    """A set the first Judge run passed, rated "yes" by both physicians and accepted by the inspector."""
    import_liveclin(1, judge=[{"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]}])
    study = liveclin_study(admin, [physician_a, physician_b], inspectors=[inspector], min_inspector_rank=SENIOR,
                           show_prescreen=True)
    claim_and_submit(study, physician_a, "yes")
    claim_and_submit(study, physician_b, "yes")
    item = Item.objects.get(study=study)
    inspection_accept(item=item, inspector=inspector, comment="Both checks hold")
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    return item


def first_run() -> GraderRun:
    return GraderRun.objects.order_by("pk").first()


def test_the_judge_run_is_pinned_when_the_study_starts(accepted):
    from liveclin.models import StudyJudgeRun

    pin = StudyJudgeRun.objects.get(study=accepted.study)
    assert pin.run == first_run()
    assert ReviewEvent.objects.filter(study=accepted.study, kind="judge_run_pinned").count() == 1


def test_the_study_page_and_api_show_the_options_and_the_pinned_run(client, admin, accepted):
    run = first_run()
    page = login(client, admin).get(reverse("annotation:study_detail", args=[accepted.study_id])).content.decode()
    assert 'id="study-options"' in page
    assert "Show the Judge pre-screen to raters" in page and "Associate Chief" in page
    assert run.name in page
    body = api_client_for(admin).get(reverse("annotation_api:study_list")).json()
    study = next(s for s in body if s["id"] == accepted.study_id)
    assert study["show_prescreen"] is True and study["min_inspector_rank"] == "associate_chief"
    assert study["judge_run"]["id"] == run.pk and study["judge_run"]["name"] == run.name


def test_a_later_run_is_offered_but_never_swapped_in(client, admin, researcher, accepted):
    later = second_judge_run(flags_set_1=True)
    release = accepted.revision.release
    review = release_review(release)
    assert review.run == first_run()
    assert outcome(review.sets[0]).status == VALIDATED
    page = login(client, admin).get(reverse("annotation:study_detail", args=[accepted.study_id])).content.decode()
    assert 'id="later-judge-run"' in page and later.name in page
    report = login(client, researcher).get(reverse("liveclin:release_quality", args=[release.pk])).content.decode()
    assert first_run().name in report and 'id="later-judge-runs"' in report
    api = api_client_for(researcher).get(reverse("liveclin_api:release_quality", args=[release.pk])).json()
    assert api["judge_run"]["id"] == first_run().pk and api["judge_run"]["basis"] == "pinned"
    assert [r["id"] for r in api["later_judge_runs"]] == [later.pk]
    assert api["studies"][0]["show_prescreen"] is True and api["studies"][0]["min_inspector_rank"] == "associate_chief"


def test_pinning_a_run_that_adds_a_flag_requeues_a_set_decided_before_it(client, admin, inspector, accepted):
    later = second_judge_run(flags_set_1=True)
    url = reverse("liveclin:study_judge_run", args=[accepted.study_id])
    response = login(client, admin).post(url, {"run": later.pk})
    assert response.status_code == 302
    accepted.refresh_from_db()
    assert accepted.status == Item.Status.INSPECTION
    assert not FinalLabel.objects.filter(item=accepted).exists()
    event = ReviewEvent.objects.filter(item=accepted, kind=ReviewEvent.Kind.SENT_TO_INSPECTION).latest("pk")
    assert event.data["why"] == ["judge_flag"] and event.data["judge_run"] == later.pk
    assert event.data["previous_final_labels"]  # what stood before, kept in the audit trail
    assert [i.pk for i in inspector_queue(inspector=inspector).pending] == [accepted.pk]
    review = release_review(accepted.revision.release)
    assert review.run == later and outcome(review.sets[0]).status == PENDING
    # The Judge's new verdict is what the inspector now reads.
    assert "SECOND-RUN-MARKER" in login(client, inspector).get(
        reverse("annotation:inspect", args=[accepted.pk])).content.decode()


def test_pinning_a_run_without_new_flags_leaves_decisions_alone(client, admin, accepted):
    later = second_judge_run(flags_set_1=False)
    response = api_client_for(admin).post(reverse("liveclin_api:study_judge_run", args=[accepted.study_id]),
                                          {"run": later.pk}, format="json")
    assert response.status_code == 200
    assert response.json()["requeued"] == []
    accepted.refresh_from_db()
    assert accepted.status == Item.Status.RESOLVED


def test_only_admins_pin_a_run(client, researcher, inspector, accepted):
    later = second_judge_run(flags_set_1=True)
    url = reverse("liveclin:study_judge_run", args=[accepted.study_id])
    assert login(client, researcher).post(url, {"run": later.pk}).status_code == 403
    assert login(client, inspector).post(url, {"run": later.pk}).status_code in (403, 404)
    accepted.refresh_from_db()
    assert accepted.status == Item.Status.RESOLVED


def test_the_validated_export_manifest_names_the_run_and_the_study_options(client, researcher, accepted):
    release = accepted.revision.release
    response = login(client, researcher).get(reverse("liveclin:release_validated_manifest", args=[release.pk]))
    assert response.status_code == 200
    manifest = json.loads(response.content)
    assert manifest["judge_run"]["id"] == first_run().pk and manifest["judge_run"]["basis"] == "pinned"
    assert manifest["sets"] == 1
    assert manifest["studies"] == [{"id": accepted.study_id, "name": accepted.study.name, "show_prescreen": True,
                                    "min_inspector_rank": "associate_chief", "judge_run": first_run().pk}]
    # Issue 22: the reviewing study's audit-chain head, a copy outside the database.
    from annotation.models import AuditChainHead

    assert manifest["audit_chain"] == [AuditChainHead.objects.get(study_id=accepted.study_id).as_dict()]
    export = client.get(reverse("liveclin:release_validated_export", args=[release.pk]))
    import hashlib

    assert manifest["sha256"] == hashlib.sha256(export.content).hexdigest()


def test_the_command_writes_the_manifest_beside_the_validated_file(accepted, tmp_path):
    import hashlib
    from io import StringIO

    from django.core.management import call_command

    out = tmp_path / "validated.jsonl"
    call_command("liveclin_validated", "--release", str(accepted.revision.release_id), "--output", str(out),
                 stderr=StringIO())
    manifest = json.loads((tmp_path / "validated.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert manifest["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest() and manifest["sets"] == 1
    assert manifest["judge_run"]["id"] == first_run().pk
    assert manifest["studies"][0]["show_prescreen"] is True


def test_the_api_names_the_pinned_run_to_the_studys_readers(admin, researcher, inspector, outsider, accepted):
    url = reverse("liveclin_api:study_judge_run", args=[accepted.study_id])
    for reader in (admin, researcher, inspector):
        body = api_client_for(reader).get(url).json()
        assert body["judge_run"]["id"] == first_run().pk and body["later_judge_runs"] == []
    assert api_client_for(outsider).get(url).status_code == 404
    assert api_client_for(researcher).post(url, {"run": first_run().pk}, format="json").status_code == 403
    assert api_client_for(admin).post(url, {"run": 999999}, format="json").status_code == 400
