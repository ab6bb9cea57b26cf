"""Issue 11: calibration items gate new raters; the expected answer after each; admission by an admin
or a study threshold; calibration labels never in agreement statistics; a physician's own feedback."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.inspection.services import inspection_adjudicate
from annotation.models import Assignment, Item, Rating, ReviewEvent, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.calibration.feedback import rater_agreement_with_final
from annotation.studies.calibration.services import (
    calibration_import,
    calibration_mark,
    calibration_scores,
    rater_admit,
)
from medreview.errors import ConflictError
from tests.annotation.builders import claim_and_submit, disagree, labels_for, make_running_study
from tests.conftest import login


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=4,
                               tasks=("narrative-quality",))
    first, second = study.items.order_by("pk")[:2]
    calibration_mark(item=first, actor=admin, expected={
        "narrative-quality|": {"label": "2", "explanation": "Complete history, clear query."}})
    calibration_mark(item=second, actor=admin, expected={
        "narrative-quality|": {"label": "0", "explanation": "No age, no timeline."}})
    return study


def _submit(assignment, rater, label):
    return rating_submit(assignment=assignment, rater=rater,
                                  labels={"narrative-quality|": {"label": label, "comment": ""}}, seconds_spent=5)


def test_a_new_rater_does_the_calibration_round_first_then_waits_for_admission(study, admin, physician_a):
    calibration = list(study.items.filter(status=Item.Status.CALIBRATION).order_by("pk"))
    first = assignment_claim_next(study=study, rater=physician_a)
    assert first.item_id == calibration[0].pk and first.round == 0
    _submit(first, physician_a, "2")
    second = assignment_claim_next(study=study, rater=physician_a)
    assert second.item_id == calibration[1].pk
    _submit(second, physician_a, "1")
    # Done, not admitted: no main-queue item.
    assert assignment_claim_next(study=study, rater=physician_a) is None
    score = calibration_scores(study)[physician_a.pk]
    assert (score.items_done, score.matched, score.fields) == (2, 1, 2)
    rater_admit(study=study, rater=physician_a, actor=admin)
    main = assignment_claim_next(study=study, rater=physician_a)
    assert main.item.status == Item.Status.OPEN and main.round == 1
    assert ReviewEvent.objects.filter(kind=ReviewEvent.Kind.ADMITTED).count() == 1


def test_a_study_threshold_admits_at_once(study, physician_a, physician_b):
    study.calibration_threshold = 0.5
    study.save(update_fields=["calibration_threshold"])
    _submit(assignment_claim_next(study=study, rater=physician_a), physician_a, "2")
    _submit(assignment_claim_next(study=study, rater=physician_a), physician_a, "1")
    assert StudyMember.objects.get(study=study, user=physician_a, role="rater").admitted_at is not None
    assert assignment_claim_next(study=study, rater=physician_a).item.status == Item.Status.OPEN
    # Below the threshold: still waiting.
    _submit(assignment_claim_next(study=study, rater=physician_b), physician_b, "0")
    _submit(assignment_claim_next(study=study, rater=physician_b), physician_b, "2")
    assert StudyMember.objects.get(study=study, user=physician_b, role="rater").admitted_at is None
    assert assignment_claim_next(study=study, rater=physician_b) is None


def test_calibration_items_take_no_slot_and_are_never_inspected(study, physician_a, physician_b):
    for rater in (physician_a, physician_b):
        _submit(assignment_claim_next(study=study, rater=rater), rater, "2")
        _submit(assignment_claim_next(study=study, rater=rater), rater, "2")
    calibration = study.items.filter(status=Item.Status.CALIBRATION)
    assert calibration.count() == 2
    assert Assignment.objects.filter(item__in=calibration, state=Assignment.State.SUBMITTED).count() == 4
    assert not Rating.objects.filter(round=1).exists()  # never first-round ratings: not in agreement statistics


def test_calibration_labels_never_enter_the_agreement_ratings(study, admin, physician_a, physician_b):
    from agreement.selection import Selection
    from agreement.selectors import ratings_queryset

    for rater in (physician_a, physician_b):
        _submit(assignment_claim_next(study=study, rater=rater), rater, "2")
        _submit(assignment_claim_next(study=study, rater=rater), rater, "0")
        rater_admit(study=study, rater=rater, actor=admin)
    claim_and_submit(study, physician_a, "2")
    rated = ratings_queryset(Selection(study_id=study.pk))
    assert set(rated.values_list("assignment__item__status", flat=True)) == {Item.Status.OPEN}


def test_the_rater_sees_the_expected_answer_after_each_calibration_item(client, study, physician_a):
    claim = assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    response = client.post(reverse("annotation:rate", args=[claim.pk]),
                           {"narrative-quality|": "1", "comment:narrative-quality|": "", "seconds_spent": "9"})
    assert response["Location"] == reverse("annotation:calibration_feedback", args=[claim.pk])
    page = client.get(response["Location"]).content.decode()
    assert "Complete history, clear query." in page and "Perfect" in page and "different" in page


def test_only_unrated_items_become_calibration_items(admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=1, tasks=("narrative-quality",))
    claim_and_submit(study, physician_a, "2")
    with pytest.raises(ConflictError):
        calibration_import(study=study, actor=admin, rows=[
            {"item": study.items.get().key, "expected": {"narrative-quality|": {"label": "2"}}}])


def test_the_admin_page_lists_agreement_and_admits(client, study, admin, physician_a):
    _submit(assignment_claim_next(study=study, rater=physician_a), physician_a, "2")
    login(client, admin)
    page = client.get(reverse("annotation:study_calibration", args=[study.pk])).content.decode()
    assert "1 of 1" in page and "Admit" in page
    client.post(reverse("annotation:calibration_admit", args=[study.pk]), {"rater": physician_a.pk})
    assert StudyMember.objects.get(study=study, user=physician_a, role="rater").admitted_at is not None


def test_a_physician_sees_their_agreement_with_final_labels_per_task(admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=2)
    item, a, _b = disagree(study, physician_a, physician_b)
    labels = {fid: entry["label"] for fid, entry in labels_for(a, "agree").items()}
    labels["narrative-quality|"] = "0"
    inspection_adjudicate(item=item, inspector=inspector, labels=labels, reason="Poor history")
    mine = {row.task: (row.matched, row.total) for row in rater_agreement_with_final(rater=physician_a)}
    theirs = {row.task: (row.matched, row.total) for row in rater_agreement_with_final(rater=physician_b)}
    assert mine["Patient narrative & query quality"] == (0, 1)
    assert theirs["Patient narrative & query quality"] == (1, 1)
    assert mine["Criterion validity"][0] == mine["Criterion validity"][1] > 0


def test_the_command_imports_expected_answers(tmp_path, admin, physician_a):
    import json

    from django.core.management import call_command

    study = make_running_study(admin, [physician_a], cases=2, tasks=("narrative-quality",))
    key = study.items.order_by("pk").first().key
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps([{"item": key, "expected": {"narrative-quality|": {"label": "1", "explanation": "x"}}}]))
    call_command("import_calibration", str(study.pk), str(path), "--admin", admin.username)
    item = study.items.get(key=key)
    assert item.status == Item.Status.CALIBRATION and item.expected["narrative-quality|"]["label"] == "1"
