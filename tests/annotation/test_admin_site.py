"""The Django admin: every review model browsable; accounts editable with their profile; ratings read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Rating
from tests.annotation.builders import (
    claim_and_submit,
    make_cases,
    running_study,
)

pytestmark = pytest.mark.django_db



# (app, model): profiles moved to the accounts app with Role and Rank.
MODELS = [("accounts", "profile")] + [
    ("annotation", model)
    for model in ["scale", "tasktype", "study", "item", "assignment", "rating", "reviewevent", "inspection",
                  "finallabel"]
]


@pytest.fixture
def superuser():
    return get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-2026")


def test_it_lists_every_review_model_in_the_admin(client, superuser, admin, physician_a):
    make_cases(1)
    claim_and_submit(running_study(admin, raters=[physician_a], raters_per_item=1), physician_a, "2")
    client.force_login(superuser)
    for app, model in MODELS:
        response = client.get(reverse(f"admin:{app}_{model}_changelist"))
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
