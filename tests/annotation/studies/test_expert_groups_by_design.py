"""Expert groups by design (ClinConsensus 6.1): a study assigns its raters to groups A and B and the
queue gives each item one rater from each group; the report's group tables then use those groups."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from agreement.reports import build_report
from agreement.selectors import Selection
from annotation.models import Assignment, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.groups import study_set_rater_groups
from tests.agreement.builders import make_study, reliability_study
from tests.annotation.builders import make_cases, running_study
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def grouped(admin, physician_a, physician_b, inspector):
    extra = make_user("physician_c", role="physician")
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b, inspector, extra])
    study_set_rater_groups(study=study, groups={physician_a: "A", extra: "A", physician_b: "B", inspector: "B"},
                           actor=admin)
    return study, (physician_a, extra), (physician_b, inspector)


def test_the_queue_gives_each_item_one_rater_from_each_group(grouped):
    study, group_a, group_b = grouped
    first_a = assignment_claim_next(study=study, rater=group_a[0])
    second_a = assignment_claim_next(study=study, rater=group_a[1])
    assert first_a.item_id != second_a.item_id  # the item's group-A slot is taken
    first_b = assignment_claim_next(study=study, rater=group_b[0])
    assert first_b.item_id == first_a.item_id  # started items first, and its group-B slot is free
    second_b = assignment_claim_next(study=study, rater=group_b[1])
    assert second_b.item_id == second_a.item_id
    for item_id in (first_a.item_id, second_a.item_id):
        groups = sorted(StudyMember.objects.get(study=study, user_id=a.rater_id, role="rater").group
                        for a in Assignment.objects.filter(item_id=item_id))
        assert groups == ["A", "B"]


def test_a_rater_without_a_group_gets_nothing_in_a_grouped_study(grouped, admin):
    study, *_ = grouped
    loner = make_user("physician_d", role="physician")
    StudyMember.objects.create(study=study, user=loner, role=StudyMember.Role.RATER)
    assert assignment_claim_next(study=study, rater=loner) is None


def test_groups_must_be_a_or_b_and_raters_of_the_study(grouped, admin, researcher):
    study, *_ = grouped
    with pytest.raises(ValidationError):
        study_set_rater_groups(study=study, groups={researcher: "A"}, actor=admin)
    with pytest.raises(ValidationError):
        study_set_rater_groups(study=study, groups={grouped[1][0]: "C"}, actor=admin)


def test_the_report_uses_the_designed_groups(admin, physician_a, physician_b, inspector):
    extra = make_user("physician_c", role="physician")
    raters = [physician_a, extra, physician_b, inspector]
    study = make_study()
    for user, group in zip(raters, "AABB", strict=True):
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER, group=group)
    reliability_study(raters, n_cases=3, study=study)
    designed = build_report(Selection(study_id=study.pk, group_by="study"))
    by_names = build_report(Selection(study_id=study.pk, group_a=("R-physician_a", "R-physician_c"),
                                      group_b=("R-physician_b", "R-inspector")))
    table = designed.table("expert_groups")
    assert table is not None and "by study design" in table.note
    assert table.frame.to_dict("records") == by_names.table("expert_groups").frame.to_dict("records")


@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_keep_one_rater_of_each_group_per_item(postgres_only, admin):
    """Eight raters (four per group) claim at once on PostgreSQL: no item ever holds two raters of one group."""
    import threading
    from importlib import import_module

    from django.apps import apps as django_apps
    from django.db import connection

    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    import_module("annotation.migrations.0009_approval_score_at_least_one").forward(django_apps, None)
    make_cases(6)
    raters = [make_user(f"grouped{i}", role="physician") for i in range(8)]
    study = running_study(admin, raters=raters)
    study_set_rater_groups(study=study, groups={r: "AB"[i % 2] for i, r in enumerate(raters)}, actor=admin)
    barrier = threading.Barrier(len(raters))
    errors: list[BaseException] = []

    def claim(i: int) -> None:
        try:
            barrier.wait()
            assignment_claim_next(study=study, rater=raters[i])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(raters))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    groups = dict(StudyMember.objects.filter(study=study, role="rater").values_list("user_id", "group"))
    per_item: dict[int, list[str]] = {}
    for item_id, rater_id in Assignment.objects.filter(item__study=study).values_list("item_id", "rater_id"):
        per_item.setdefault(item_id, []).append(groups[rater_id])
    assert sum(len(v) for v in per_item.values()) == 8  # everyone got an item
    assert all(sorted(v) in (["A"], ["B"], ["A", "B"]) for v in per_item.values())
