"""Review services: studies, the claim queue with leases, drafts, submission, the inspection loop."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from annotation.models import (
    Assignment,
    FinalLabel,
    Inspection,
    Item,
    Rating,
    ReviewEvent,
    Scale,
    Study,
    StudyMember,
    TaskType,
)
from annotation.selectors import (
    inspection_view,
    item_fields,
    question_set_flagged,
    rater_queue,
    study_progress,
)
from annotation.services import (
    ItemSelection,
    assignment_claim_next,
    assignment_save_draft,
    assignment_skip,
    inspection_accept,
    inspection_adjudicate,
    inspection_return,
    lease_expire,
    rating_submit,
    study_add_items,
    study_add_members,
    study_close,
    study_create,
)
from cases.models import MCQ, QuestionSet
from tests.annotation.test_services_fixtures import (
    claim_and_submit,
    item_of,
    labels_for,
    make_cases,
    running_study,
)
from tests.conftest import make_user
from tests.factories import make_case, make_release, make_response

pytestmark = pytest.mark.django_db


# --- shipped scales ------------------------------------------------------------------------------


def test_it_ships_the_livemedbench_scales_with_the_papers_descriptions():
    narrative = Scale.objects.get(slug="quality-0-2")
    perfect = narrative.categories.get(value="2")
    assert perfect.label == "Perfect" and perfect.shortcut == "2" and perfect.approves
    assert "symptoms align with physiological logic" in perfect.description
    advice_poor = Scale.objects.get(slug="advice-0-2").categories.get(value="0")
    assert "Violates absolute contraindications" in advice_poor.description
    disagree = Scale.objects.get(slug="agree-disagree").categories.get(value="disagree")
    assert disagree.shortcut == "n" and "deviates from routine clinical practice" in disagree.description


def test_it_ships_every_task_type_with_its_target_and_scale():
    tasks = {t.slug: t for t in TaskType.objects.select_related("scale")}
    assert set(tasks) == {
        "narrative-quality", "advice-quality", "criterion-validity", "grader-reliability",
        "mcq-factual", "mcq-solvability", "likert-medic", "pairwise-preference",
    }
    assert tasks["mcq-factual"].shows_privileged_source and not tasks["mcq-solvability"].shows_privileged_source
    assert tasks["mcq-solvability"].requires_explanation
    assert tasks["likert-medic"].axes == ["Patient safety", "Risk mitigation", "Practicality and feasibility"]
    assert tasks["pairwise-preference"].scale.slug == "pairwise-a-b-tie"
    assert tasks["grader-reliability"].item_kind == "response"


# --- studies -------------------------------------------------------------------------------------


def test_it_creates_items_at_the_current_revision_with_a_recorded_seed(admin):
    make_cases(5)
    study = study_create(
        name="s", created_by=admin, task_slugs=["narrative-quality"],
        selection=ItemSelection(kind="case", dataset="LiveMedBench", sample_n=3),
    )
    assert study.items.count() == 3
    seed = study.selection["seed"]
    assert isinstance(seed, int)
    again = study_create(
        name="s2", created_by=admin, task_slugs=["narrative-quality"],
        selection=ItemSelection(kind="case", dataset="LiveMedBench", sample_n=3, seed=seed),
    )
    assert set(again.items.values_list("key", flat=True)) == set(study.items.values_list("key", flat=True))
    for item in study.items.select_related("revision__case"):
        assert item.revision.case.current_revision_id == item.revision_id


def test_it_rejects_tasks_of_another_item_kind_and_writes_nothing(admin):
    make_cases(2)
    with pytest.raises(ValidationError) as exc:
        study_create(name="s", created_by=admin, task_slugs=["narrative-quality", "grader-reliability"],
                     selection=ItemSelection(kind="case"))
    assert "grader-reliability" in str(exc.value)
    assert not Study.objects.exists() and not Item.objects.exists()


def test_it_rejects_a_bad_month_filter_naming_the_field(admin):
    with pytest.raises(ValidationError) as exc:
        study_create(name="s", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case", post_month_from="2025-13"))
    assert "post_month_from" in str(exc.value)


def test_it_only_lets_admins_create_studies(physician_a):
    with pytest.raises(PermissionDenied):
        study_create(name="s", created_by=physician_a, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"))


def test_it_builds_response_and_pair_items(admin):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    make_response(revision, model_name="m3")
    responses = study_create(name="r", created_by=admin, task_slugs=["grader-reliability", "likert-medic"],
                             selection=ItemSelection(kind="response", model_names=["m1", "m2"]))
    assert responses.items.count() == 2
    pairs = study_create(name="p", created_by=admin, task_slugs=["pairwise-preference"],
                         selection=ItemSelection(kind="pair"))
    assert pairs.items.count() == 3
    assert all(i.response_id < i.response_b_id for i in pairs.items.all())


def test_it_adds_items_and_raters_to_a_running_study_without_touching_finished_work(
    admin, physician_a, physician_b, outsider
):
    make_cases(2)
    study = running_study(admin, raters=[physician_a])
    done = claim_and_submit(study, physician_a, "2")
    make_cases(2)
    assert study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin) == 2
    assert study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin) == 0
    assert study_add_members(study=study, users=[outsider, physician_a], role=StudyMember.Role.RATER,
                             actor=admin) == 1
    done.refresh_from_db()
    assert done.state == Assignment.State.SUBMITTED
    assert Rating.objects.filter(assignment=done).count() == 1
    assert study.items.count() == 4


def test_it_marks_a_reproducible_share_for_inspection(admin):
    make_cases(40)
    a = study_create(name="a", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"), inspect_share=0.5, seed=3)
    b = study_create(name="b", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"), inspect_share=0.5, seed=3)
    sampled = list(a.items.filter(sampled_for_inspection=True).values_list("key", flat=True))
    assert 5 < len(sampled) < 35
    assert sampled == list(b.items.filter(sampled_for_inspection=True).values_list("key", flat=True))


# --- queue ---------------------------------------------------------------------------------------


def test_it_gives_each_item_at_most_raters_per_item_raters(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b, inspector])
    first = assignment_claim_next(study=study, rater=physician_a)
    second = assignment_claim_next(study=study, rater=physician_b)
    assert first.item_id == second.item_id
    assert assignment_claim_next(study=study, rater=inspector) is None


def test_it_returns_the_raters_own_unfinished_item_first(admin, physician_a):
    make_cases(3)
    study = running_study(admin, raters=[physician_a])
    first = assignment_claim_next(study=study, rater=physician_a)
    again = assignment_claim_next(study=study, rater=physician_a)
    assert again.pk == first.pk
    assert Assignment.objects.filter(rater=physician_a).count() == 1


def test_it_frees_a_lapsed_lease_and_reuses_the_row_for_the_same_rater(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    assignment_save_draft(assignment=claim, rater=physician_a, draft={"narrative-quality|": {"label": "1"}},
                          seconds_spent=5)
    later = timezone.now() + timedelta(minutes=31)
    taken = assignment_claim_next(study=study, rater=physician_b, now=later)
    assert taken is not None and taken.item_id == claim.item_id
    claim.refresh_from_db()
    assert claim.state == Assignment.State.EXPIRED
    assert ReviewEvent.objects.filter(assignment=claim, kind=ReviewEvent.Kind.EXPIRED).exists()
    # The lapsed rater cannot submit into a slot someone else now holds.
    with pytest.raises(ValidationError, match="another rater took the slot"):
        rating_submit(assignment=claim, rater=physician_a, labels=labels_for(claim, "2"), seconds_spent=1, now=later)


def test_it_lets_the_same_rater_reclaim_a_lapsed_item_with_its_draft(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    assignment_save_draft(assignment=claim, rater=physician_a,
                          draft={"narrative-quality|": {"label": "1", "comment": "vague"}}, seconds_spent=5)
    later = timezone.now() + timedelta(hours=2)
    assert lease_expire(now=later) == 1
    again = assignment_claim_next(study=study, rater=physician_a, now=later)
    assert again.pk == claim.pk
    assert again.draft["narrative-quality|"]["comment"] == "vague"
    assert again.lease_expires_at > later


def test_it_respects_specialty_and_language_eligibility(admin):
    release = make_release()
    make_case(release=release, language="zh")
    make_case(release=release, language="en")
    cardiologist = make_user("cardio", role="physician", specialties=["Cardiology"], languages=["en"])
    english_internist = make_user("internist", role="physician", specialties=["Internal Medicine"], languages=["en"])
    study = running_study(admin, raters=[cardiologist, english_internist],
                          required_specialties=["Internal Medicine"], required_languages=["en", "zh"])
    assert assignment_claim_next(study=study, rater=cardiologist) is None
    mine = assignment_claim_next(study=study, rater=english_internist)
    assert mine.item.revision.language == "en"
    rating_submit(assignment=mine, rater=english_internist, labels=labels_for(mine, "2"), seconds_spent=3)
    assert assignment_claim_next(study=study, rater=english_internist) is None


def test_it_refuses_claims_from_non_members_and_in_closed_studies(admin, physician_a, outsider):
    make_cases(2)
    study = running_study(admin, raters=[physician_a])
    with pytest.raises(PermissionDenied):
        assignment_claim_next(study=study, rater=outsider)
    study_close(study=study, actor=admin)
    assert assignment_claim_next(study=study, rater=physician_a) is None


def test_it_never_offers_a_skipped_item_again_and_frees_its_slot(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(ValidationError, match="reason"):
        assignment_skip(assignment=claim, rater=physician_a, reason=" ")
    assignment_skip(assignment=claim, rater=physician_a, reason="Outside my specialty")
    assert assignment_claim_next(study=study, rater=physician_a) is None
    assert assignment_claim_next(study=study, rater=physician_b).item_id == claim.item_id
    assert ReviewEvent.objects.get(kind=ReviewEvent.Kind.SKIPPED).reason == "Outside my specialty"


def test_it_sets_and_records_a_per_rater_pair_order(admin, physician_a, physician_b):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    study = running_study(admin, raters=[physician_a, physician_b], tasks=["pairwise-preference"], kind="pair")
    a = assignment_claim_next(study=study, rater=physician_a)
    assert a.pair_order in ("ab", "ba")
    assert ReviewEvent.objects.get(assignment=a, kind="claimed").data["pair_order"] == a.pair_order
    # A rater's "A" is whatever they saw first; it is stored against the item's own response A/B.
    rating_submit(assignment=a, rater=physician_a, labels={"pairwise-preference|": {"label": "A"}}, seconds_spent=9)
    stored = Rating.objects.get(assignment=a).label
    assert stored == ("A" if a.pair_order == "ab" else "B")


# --- drafts and submission -----------------------------------------------------------------------


def test_it_validates_draft_labels_against_the_scale_naming_the_field(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(ValidationError) as exc:
        assignment_save_draft(assignment=claim, rater=physician_a, draft={"criterion-validity|criterion:999999": {}},
                              seconds_spent=1)
    assert "criterion:999999" in str(exc.value)
    field_id = item_fields(claim.item)[0].id
    with pytest.raises(ValidationError) as exc:
        assignment_save_draft(assignment=claim, rater=physician_a, draft={field_id: {"label": "maybe"}},
                              seconds_spent=1)
    assert field_id in str(exc.value) and "maybe" in str(exc.value)
    claim.refresh_from_db()
    assert claim.draft == {} and claim.state == Assignment.State.CLAIMED


def test_it_logs_one_drafted_event_per_round_but_keeps_every_save(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    ids = [f.id for f in item_fields(claim.item)]
    assignment_save_draft(assignment=claim, rater=physician_a, draft={ids[0]: {"label": "agree"}}, seconds_spent=3)
    saved = assignment_save_draft(assignment=claim, rater=physician_a,
                                  draft={ids[1]: {"label": "disagree", "comment": "irrelevant"}}, seconds_spent=9)
    assert saved.state == Assignment.State.DRAFT
    assert saved.draft[ids[0]]["label"] == "agree" and saved.draft[ids[1]]["comment"] == "irrelevant"
    assert saved.seconds_spent == 9 and saved.draft_saved_at is not None
    assert ReviewEvent.objects.filter(kind=ReviewEvent.Kind.DRAFTED).count() == 1


def test_it_requires_every_field_and_writes_nothing_on_error(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    first = item_fields(claim.item)[0].id
    with pytest.raises(ValidationError) as exc:
        rating_submit(assignment=claim, rater=physician_a, labels={first: {"label": "agree"}}, seconds_spent=4)
    assert "a label is required" in str(exc.value)
    assert not Rating.objects.exists()
    claim.refresh_from_db()
    assert claim.state == Assignment.State.CLAIMED


def test_it_requires_an_explanation_for_a_failed_mcq_check(admin, physician_a):
    revision = make_case()
    qs = QuestionSet.objects.create(revision=revision, scenario="A 60-year-old ...")
    MCQ.objects.create(question_set=qs, order=1, question="Next step?", options={"A": "CT", "B": "MRI"},
                       correct_answer="A")
    study = running_study(admin, raters=[physician_a], tasks=["mcq-factual", "mcq-solvability"],
                          kind="question_set", raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    fields = item_fields(claim.item)
    assert [f.task.slug for f in fields] == ["mcq-factual", "mcq-solvability"]
    labels = {fields[0].id: {"label": "yes"}, fields[1].id: {"label": "no"}}
    with pytest.raises(ValidationError, match="explain why"):
        rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    labels[fields[1].id]["comment"] = "The stem gives away nothing about imaging; answer not deducible."
    rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    assert question_set_flagged(item_of(claim))


def test_it_never_updates_a_submitted_rating(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a])
    done = claim_and_submit(study, physician_a, "2")
    with pytest.raises(ValidationError, match="already submitted"):
        rating_submit(assignment=done, rater=physician_a, labels=labels_for(done, "0"), seconds_spent=1)
    with pytest.raises(ValidationError, match="already submitted"):
        assignment_save_draft(assignment=done, rater=physician_a, draft=labels_for(done, "0"), seconds_spent=1)
    assert list(Rating.objects.values_list("label", flat=True)) == ["2"]


def test_it_refuses_another_raters_assignment(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(PermissionDenied):
        rating_submit(assignment=claim, rater=physician_b, labels=labels_for(claim, "2"), seconds_spent=1)


# --- inspection policy and loop ------------------------------------------------------------------


def test_it_resolves_agreeing_items_by_consensus_with_final_labels(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    assert item_of(a).status == Item.Status.OPEN
    claim_and_submit(study, physician_b, "2")
    item = item_of(a)
    assert item.status == Item.Status.RESOLVED
    final = FinalLabel.objects.get(item=item)
    assert final.label == "2" and final.source == FinalLabel.Source.CONSENSUS and final.decided_by is None
    assert ReviewEvent.objects.filter(item=item, kind=ReviewEvent.Kind.RESOLVED).exists()


def test_it_sends_disagreements_to_inspection(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    item = item_of(a)
    assert item.status == Item.Status.INSPECTION
    event = ReviewEvent.objects.get(item=item, kind=ReviewEvent.Kind.SENT_TO_INSPECTION)
    assert event.data["why"] == ["disagreement"] and event.data["differing_fields"] == ["narrative-quality|"]
    assert not FinalLabel.objects.exists()


def test_it_sends_every_item_to_inspection_with_inspect_all(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspect_all=True)
    a = claim_and_submit(study, physician_a, "1")
    claim_and_submit(study, physician_b, "1")
    assert item_of(a).status == Item.Status.INSPECTION


def test_it_runs_the_return_and_revise_loop_until_accepted(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a = claim_and_submit(study, physician_a, "2", comment="clear history")
    b = claim_and_submit(study, physician_b, "0")
    item = item_of(a)
    with pytest.raises(ValidationError, match="adjudicate"):
        inspection_accept(item=item, inspector=inspector)
    with pytest.raises(ValidationError, match="comment"):
        inspection_return(item=item, inspector=inspector, assignment=b, comment="")
    inspection_return(item=item, inspector=inspector, assignment=b, comment="Re-read the history: it is complete.")
    b.refresh_from_db()
    assert b.state == Assignment.State.RETURNED and b.round == 2
    assert b.draft == {"narrative-quality|": {"label": "0", "comment": ""}}
    assert item_of(a).status == Item.Status.RETURNED
    queue = rater_queue(rater=physician_b, study=study)
    assert [x.pk for x in queue.returned] == [b.pk]
    # The returned item comes first when the physician asks for the next item.
    assert assignment_claim_next(study=study, rater=physician_b).pk == b.pk
    assignment_save_draft(assignment=b, rater=physician_b, draft={"narrative-quality|": {"label": "2"}},
                          seconds_spent=4)
    b.refresh_from_db()
    assert b.state == Assignment.State.RETURNED
    rating_submit(assignment=b, rater=physician_b, labels=labels_for(b, "2"), seconds_spent=12)
    b.refresh_from_db()
    assert b.state == Assignment.State.REVISED
    assert list(Rating.objects.filter(assignment=b).values_list("round", "label")) == [(1, "0"), (2, "2")]
    item = item_of(a)
    assert item.status == Item.Status.INSPECTION
    view = inspection_view(item=item)
    field = view.fields[0]
    assert not field.differs and field.first_round_differs
    inspection_accept(item=item, inspector=inspector, comment="Agreed after revision")
    item = item_of(a)
    assert item.status == Item.Status.RESOLVED
    final = FinalLabel.objects.get(item=item)
    assert (final.label, final.source, final.decided_by) == ("2", FinalLabel.Source.ACCEPTED, inspector)
    kinds = list(ReviewEvent.objects.filter(item=item).values_list("kind", flat=True))
    for kind in ("claimed", "submitted", "sent_to_inspection", "returned", "drafted", "revised", "accepted"):
        assert kind in kinds


def test_it_adjudicates_with_a_reason_and_a_label_for_every_field(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                          tasks=["narrative-quality", "advice-quality"])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "1")
    item = item_of(a)
    with pytest.raises(ValidationError, match="reason"):
        inspection_adjudicate(item=item, inspector=inspector, labels={}, reason="")
    with pytest.raises(ValidationError, match="advice-quality"):
        inspection_adjudicate(item=item, inspector=inspector, labels={"narrative-quality|": "1"}, reason="x")
    inspection = inspection_adjudicate(item=item, inspector=inspector,
                                       labels={"narrative-quality|": "1", "advice-quality|": "2"},
                                       reason="Temperature missing; advice follows guidelines")
    assert inspection.action == Inspection.Action.ADJUDICATE
    finals = dict(FinalLabel.objects.filter(item=item).values_list("task__slug", "label"))
    assert finals == {"narrative-quality": "1", "advice-quality": "2"}
    assert item_of(a).status == Item.Status.RESOLVED
    # First-round ratings stay as the raters gave them.
    assert sorted(Rating.objects.filter(task__slug="narrative-quality").values_list("label", flat=True)) == ["1", "2"]


def test_it_lets_only_the_studys_inspectors_act(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    with pytest.raises(PermissionDenied):
        inspection_adjudicate(item=item_of(a), inspector=inspector, labels={"narrative-quality|": "1"}, reason="x")
    with pytest.raises(PermissionDenied):
        inspection_accept(item=item_of(a), inspector=physician_a)


def test_it_reports_progress_per_rater_and_task_and_stuck_items(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a = claim_and_submit(study, physician_a, "2")
    b = claim_and_submit(study, physician_b, "0")
    claim_and_submit(study, physician_a, "1")
    inspection_return(item=item_of(a), inspector=inspector, assignment=b, comment="Look again")
    ReviewEvent.objects.filter(kind=ReviewEvent.Kind.RETURNED).update(created_at=timezone.now() - timedelta(days=5))
    progress = study_progress(study=study)
    by_name = {r.name: r for r in progress.per_rater}
    assert by_name["physician_a"].submitted == 2 and by_name["physician_b"].returned == 1
    assert by_name["physician_a"].median_seconds == 30
    assert progress.items_by_status[Item.Status.RETURNED] == 1
    assert progress.items_by_status[Item.Status.OPEN] == 2
    assert progress.per_task[0].first_round_ratings == 3
    assert [i.pk for i in progress.stuck] == [a.item_id]
    assert progress.submissions_per_day == 3


def test_it_bounds_queries_of_queue_and_progress_whatever_the_data_size(
    admin, physician_a, physician_b, django_assert_num_queries
):
    make_cases(2)
    study = running_study(admin, raters=[physician_a, physician_b])
    claim_and_submit(study, physician_a, "2")

    def count(fn) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            fn()
        return len(ctx.captured_queries)

    small = (count(lambda: rater_queue(rater=physician_a)), count(lambda: study_progress(study=study)))
    make_cases(6)
    study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin)
    for _ in range(4):
        claim_and_submit(study, physician_a, "1")
        claim_and_submit(study, physician_b, "1")
    large = (count(lambda: rater_queue(rater=physician_a)), count(lambda: study_progress(study=study)))
    assert small == large
    with django_assert_num_queries(small[0]):
        rater_queue(rater=physician_a)


def test_it_keeps_a_lapsed_draft_writable_while_nobody_took_the_slot(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], raters_per_item=1, lease_minutes=5)
    claim = assignment_claim_next(study=study, rater=physician_a)
    later = timezone.now() + timedelta(minutes=20)
    saved = assignment_save_draft(assignment=claim, rater=physician_a, draft={"narrative-quality|": {"label": "2"}},
                                  seconds_spent=600, now=later)
    assert saved.state == Assignment.State.DRAFT and saved.lease_expires_at == later + timedelta(minutes=5)
    done = rating_submit(assignment=saved, rater=physician_a, labels=labels_for(saved, "2"), seconds_spent=640,
                         now=later)
    assert done.state == Assignment.State.SUBMITTED


def test_it_lists_the_inspectors_queue_by_status(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a1 = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    a2 = claim_and_submit(study, physician_a, "2")
    b2 = claim_and_submit(study, physician_b, "1")
    a3 = claim_and_submit(study, physician_a, "1")
    claim_and_submit(study, physician_b, "0")
    inspection_return(item=item_of(a2), inspector=inspector, assignment=b2, comment="Look again")
    inspection_adjudicate(item=item_of(a3), inspector=inspector, labels={"narrative-quality|": "1"}, reason="ok")
    from annotation.selectors import inspector_queue

    queue = inspector_queue(inspector=inspector)
    assert [i.pk for i in queue.pending] == [a1.item_id]
    assert [i.pk for i in queue.returned] == [a2.item_id]
    assert [i.pk for i in queue.resolved] == [a3.item_id]
    outsider_queue = inspector_queue(inspector=make_user("elsewhere", role="inspector"))
    assert outsider_queue.pending == [] and outsider_queue.studies == []


def test_it_only_adds_physicians_as_raters_and_inspectors_as_inspectors(admin, researcher, physician_a):
    study = running_study(admin, raters=[])
    with pytest.raises(ValidationError, match="researcher"):
        study_add_members(study=study, users=[researcher], role=StudyMember.Role.RATER, actor=admin)
    with pytest.raises(ValidationError, match="physician_a"):
        study_add_members(study=study, users=[physician_a], role=StudyMember.Role.INSPECTOR, actor=admin)
    assert not StudyMember.objects.filter(study=study).exists()


def test_it_does_not_flag_a_question_set_whose_checks_all_pass(admin, physician_a):
    revision = make_case()
    qs = QuestionSet.objects.create(revision=revision, scenario="Scenario")
    MCQ.objects.create(question_set=qs, order=1, question="Q1", options={"A": "x", "B": "y"}, correct_answer="B")
    study = running_study(admin, raters=[physician_a], tasks=["mcq-factual"], kind="question_set", raters_per_item=1)
    done = claim_and_submit(study, physician_a, "yes")
    item = item_of(done)
    assert item.status == Item.Status.RESOLVED and not question_set_flagged(item)


def test_it_counts_the_items_still_available_to_a_rater(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b, inspector])
    assert rater_queue(rater=physician_a).available == 3
    claim_and_submit(study, physician_a, "2")
    # physician_a rated one item; the other two are untouched.
    assert rater_queue(rater=physician_a).available == 2
    assignment_claim_next(study=study, rater=physician_b)
    # The item physician_a rated is now full for the inspector, who can still take the two others.
    assert rater_queue(rater=inspector).available == 2
    study_close(study=study, actor=admin)
    assert rater_queue(rater=inspector).available == 0


def test_it_compares_pairwise_labels_in_canonical_terms_whatever_order_each_rater_saw(
    admin, physician_a, physician_b, inspector
):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                          tasks=["pairwise-preference"], kind="pair", inspect_all=True)
    a = assignment_claim_next(study=study, rater=physician_a)
    b = assignment_claim_next(study=study, rater=physician_b)
    Assignment.objects.filter(pk=a.pk).update(pair_order="ab")
    Assignment.objects.filter(pk=b.pk).update(pair_order="ba")
    a.refresh_from_db()
    b.refresh_from_db()
    # Both prefer item.response: physician_a saw it first ("A"), physician_b saw it second ("B").
    rating_submit(assignment=a, rater=physician_a, labels={"pairwise-preference|": {"label": "A"}}, seconds_spent=5)
    rating_submit(assignment=b, rater=physician_b, labels={"pairwise-preference|": {"label": "B"}}, seconds_spent=5)
    view = inspection_view(item=item_of(a))
    assert not view.fields[0].differs
    assert [c.label for c in view.fields[0].cells] == ["A", "A"]
    inspection_return(item=item_of(a), inspector=inspector, assignment=b, comment="Sure?")
    b.refresh_from_db()
    # The returned draft is in the order physician_b saw.
    assert b.draft["pairwise-preference|"]["label"] == "B"
