"""The Django admin: every review model browsable; accounts editable with their profile; audit read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Rating
from tests.annotation.test_services_fixtures import claim_and_submit, make_cases, running_study

pytestmark = pytest.mark.django_db

MODELS = ["profile", "scale", "tasktype", "study", "item", "assignment", "rating", "reviewevent", "inspection",
          "finallabel"]


@pytest.fixture
def superuser():
    return get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-2026")


def test_it_lists_every_review_model_in_the_admin(client, superuser, admin, physician_a):
    make_cases(1)
    claim_and_submit(running_study(admin, raters=[physician_a], raters_per_item=1), physician_a, "2")
    client.force_login(superuser)
    for model in MODELS:
        response = client.get(reverse(f"admin:annotation_{model}_changelist"))
        assert response.status_code == 200, model


def test_it_edits_an_account_with_its_profile(client, superuser, physician_a):
    client.force_login(superuser)
    response = client.get(reverse("admin:auth_user_change", args=[physician_a.pk]))
    assert response.status_code == 200
    assert b"profile-0-role" in response.content


def test_it_keeps_ratings_read_only_in_the_admin(client, superuser, admin, physician_a):
    make_cases(1)
    claim_and_submit(running_study(admin, raters=[physician_a], raters_per_item=1), physician_a, "2")
    rating = Rating.objects.get()
    client.force_login(superuser)
    response = client.post(reverse("admin:annotation_rating_delete", args=[rating.pk]), {"post": "yes"})
    assert response.status_code == 403
    assert Rating.objects.filter(pk=rating.pk).exists()


def test_it_creates_and_starts_a_study_from_the_command_line(admin, physician_a):
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Study
    from tests.annotation.test_services_fixtures import make_cases as cases

    cases(3)
    out = StringIO()
    call_command("create_study", "CLI study", "--tasks", "narrative-quality", "--admin", "admin", "--sample", "2",
                 "--seed", "5", "--raters", "physician_a", "--start", stdout=out)
    study = Study.objects.get(name="CLI study")
    assert study.status == Study.Status.RUNNING and study.items.count() == 2
    assert "seed 5" in out.getvalue()
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="nobody"):
        call_command("create_study", "Bad", "--tasks", "narrative-quality", "--admin", "admin",
                     "--raters", "nobody", stdout=out)
    assert not Study.objects.filter(name="Bad").exists()


def test_it_expires_lapsed_leases_from_the_command_line(admin, physician_a):
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Assignment
    from annotation.services import assignment_claim_next
    from tests.annotation.test_services_fixtures import make_cases as cases

    cases(1)
    study = running_study(admin, raters=[physician_a])
    claim = assignment_claim_next(study=study, rater=physician_a)
    Assignment.objects.filter(pk=claim.pk).update(lease_expires_at=claim.lease_expires_at - timedelta(hours=1))
    out = StringIO()
    call_command("expire_leases", stdout=out)
    assert "1 lapsed" in out.getvalue()
    claim.refresh_from_db()
    assert claim.state == Assignment.State.EXPIRED
