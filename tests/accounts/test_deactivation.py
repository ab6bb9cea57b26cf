"""Issue 22, finding 7: deactivating an account ends its sessions and voids its pending invitation and
API tokens; nobody deactivates their own account or the last superuser (or the last admin), whether
through the service, the `accounts` command, the API or the Django admin."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import Profile, Role
from accounts.services import account_deactivate, account_invite, account_reactivate
from accounts.tokens import token_create
from tests.conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db
User = get_user_model()


def superuser(username: str) -> User:
    user = User.objects.create_superuser(username, f"{username}@hospital.example", PASSWORD)
    Profile.objects.create(user=user, role=Role.ADMIN, pseudonym=f"R-{username}")
    return user


def signed_in(client: Client, user) -> Client:  # noqa: ANN001
    """A real sign-in through the page (not force_login), so the session is an ordinary one."""
    done = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert done.status_code == 302, done.content[:300]
    return client


def test_deactivation_ends_every_open_session_of_the_account(admin, physician_a) -> None:
    laptop, phone = signed_in(Client(), physician_a), signed_in(Client(), physician_a)
    dashboard = reverse("annotation:physician_dashboard")
    assert laptop.get(dashboard).status_code == 200 and phone.get(dashboard).status_code == 200
    account_deactivate(user=physician_a, by=admin)
    for client in (laptop, phone):
        answer = client.get(dashboard)
        assert answer.status_code == 302 and answer.url.startswith(reverse("login"))
    # Reactivation does not bring an old session back.
    account_reactivate(user=physician_a)
    assert laptop.get(dashboard).status_code == 302


def test_deactivation_voids_a_pending_invitation_for_good(admin, client: Client) -> None:
    invited = make_user("dr.new", role=Role.PHYSICIAN)
    invited.set_unusable_password()
    invited.email = "new@hospital.example"
    invited.save()
    account_invite(user=invited, base_url="https://review.example.org")
    link = re.search(r"https://review\.example\.org(/\S+)", mail.outbox[0].body).group(1)
    account_deactivate(user=invited, by=admin)
    assert b"has been used or has expired" in client.get(link, follow=True).content
    account_reactivate(user=invited)
    assert b"has been used or has expired" in Client().get(link, follow=True).content


def test_deactivation_revokes_every_api_token(admin, physician_a) -> None:
    _, key = token_create(user=physician_a)
    token_create(user=physician_a)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(reverse("annotation_api:study_list")).status_code == 200
    account_deactivate(user=physician_a, by=admin)
    assert not AuthToken.objects.filter(user=physician_a).exists()
    assert api.get(reverse("annotation_api:study_list")).status_code == 401


def test_nobody_deactivates_their_own_account(admin) -> None:
    with pytest.raises(ValidationError, match="your own account"):
        account_deactivate(user=admin, by=admin)
    api = APIClient()
    api.force_authenticate(admin)
    refused = api.post(reverse("accounts_api:account_deactivate", args=["admin"]))
    assert refused.status_code == 400 and "your own account" in refused.content.decode()
    admin.refresh_from_db()
    assert admin.is_active


def test_the_last_active_superuser_is_never_deactivated(admin) -> None:
    root = superuser("root")
    with pytest.raises(ValidationError, match="last active superuser"):
        account_deactivate(user=root, by=admin)
    with pytest.raises(CommandError, match="last active superuser"):
        call_command("accounts", "deactivate", "root", stdout=io.StringIO())
    api = APIClient()
    api.force_authenticate(admin)
    assert api.post(reverse("accounts_api:account_deactivate", args=["root"])).status_code == 400
    root.refresh_from_db()
    assert root.is_active
    # With a second superuser, either one may go.
    superuser("root2")
    account_deactivate(user=root, by=admin)
    root.refresh_from_db()
    assert not root.is_active


def test_the_last_active_admin_is_never_deactivated(admin, physician_a) -> None:
    with pytest.raises(CommandError, match="last active admin"):
        call_command("accounts", "deactivate", "admin", stdout=io.StringIO())
    call_command("accounts", "deactivate", "physician_a", stdout=io.StringIO())
    physician_a.refresh_from_db()
    assert not physician_a.is_active


def test_the_django_admin_enforces_the_same_rules_and_ends_sessions(physician_a) -> None:
    root = superuser("root")
    client = Client()
    client.force_login(root)

    def change(user, **fields):  # noqa: ANN001, ANN003
        data = {"username": user.username, "email": user.email, "first_name": "", "last_name": "",
                "is_active": "on", "is_staff": "on" if user.is_staff else "", "is_superuser": "on" if user.is_superuser
                else "", "last_login_0": "", "last_login_1": "", "date_joined_0": "2026-01-01",
                "date_joined_1": "00:00:00", "profile-TOTAL_FORMS": "1", "profile-INITIAL_FORMS": "1",
                "profile-MIN_NUM_FORMS": "0", "profile-MAX_NUM_FORMS": "1", "profile-0-id": user.profile.pk,
                "profile-0-user": user.pk, "profile-0-role": user.profile.role, "profile-0-rank": "",
                "profile-0-specialties": [], "profile-0-languages": [],  # list controls (issue 24), not JSON
                "profile-0-pseudonym": user.profile.pseudonym, "oidc_identities-TOTAL_FORMS": "0",
                "oidc_identities-INITIAL_FORMS": "0", "oidc_identities-MIN_NUM_FORMS": "0",
                "oidc_identities-MAX_NUM_FORMS": "1000"}
        data.update(fields)
        return client.post(reverse("admin:auth_user_change", args=[user.pk]), data)

    refused = change(root, is_active="")
    assert refused.status_code == 200 and b"your own account" in refused.content
    root.refresh_from_db()
    assert root.is_active

    session = signed_in(Client(), physician_a)
    done = change(physician_a, is_active="")
    assert done.status_code == 302, done.content.decode()[:2000]
    physician_a.refresh_from_db()
    assert not physician_a.is_active
    answer = session.get(reverse("annotation:physician_dashboard"))
    assert answer.status_code == 302 and answer.url.startswith(reverse("login"))
