"""Issue 22, finding 3: single sign-on cannot take over a local account.

Identities are bound to accounts by the ID token's (`iss`, `sub`); an existing local account (above
all one with a password or superuser rights) is reached only after an admin's explicit mapping (the
Django admin, `accounts link-oidc`, the accounts API); sign-on never grants more than the mapped role
and never changes a linked account's e-mail. Tested end to end against devtools.oidc_provider.
"""

from __future__ import annotations

import io
import logging

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import OIDCIdentity, Profile, Role
from tests.accounts.sso import sign_in, signed_in_as
from tests.conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def admin1(db):
    """The demo's superuser: a password and every right."""
    user = User.objects.create_superuser("admin1", "admin1@hospital.example", PASSWORD)
    Profile.objects.create(user=user, role=Role.ADMIN, pseudonym="R-admin1")
    return user


def attacker(username: str = "Admin1", groups: tuple[str, ...] = ("med-admins",)) -> dict:
    return {"sub": "mallory-7", "preferred_username": username, "email": "mallory@elsewhere.example",
            "groups": list(groups)}


@pytest.mark.parametrize("username", ["Admin1", "admin1", "ADMIN1 "])
def test_a_provider_user_named_like_the_local_superuser_does_not_become_it(
    oidc, admin1, client: Client, username: str, caplog
) -> None:
    with caplog.at_level(logging.WARNING, logger="accounts.oidc"):
        done = sign_in(client, oidc, attacker(username))
    assert done.status_code == 302 and done.url.startswith(reverse("login"))
    assert signed_in_as(client) is None
    assert client.get("/admin/").status_code == 302  # to the admin's sign-in page
    api = APIClient()
    api.cookies = client.cookies
    assert api.get(reverse("accounts_api:account_list")).status_code in (401, 403)
    admin1.refresh_from_db()
    assert admin1.email == "admin1@hospital.example" and admin1.is_superuser
    assert not OIDCIdentity.objects.exists()
    assert User.objects.count() == 1
    # What an admin needs to link the account, if it were the same person.
    assert "mallory-7" in caplog.text and oidc.issuer in caplog.text


def test_a_local_account_with_a_password_is_not_reached_by_its_name(oidc, client: Client) -> None:
    lin = make_user("dr.lin", role=Role.PHYSICIAN)
    sign_in(client, oidc, {"sub": "lin-at-idp", "preferred_username": "dr.lin", "groups": ["med-seniors"]})
    assert signed_in_as(client) is None
    lin.refresh_from_db()
    assert lin.profile.role == Role.PHYSICIAN and not lin.oidc_identities.exists()


def test_an_account_made_by_sign_on_is_bound_to_its_subject_not_its_name(oidc) -> None:
    first = Client()
    sign_in(first, oidc, {"sub": "ada-1", "preferred_username": "dr.ada", "groups": ["med-physicians"]})
    assert signed_in_as(first) == "dr.ada"
    identity = OIDCIdentity.objects.get()
    assert (identity.issuer, identity.subject, identity.linked_by) == (oidc.issuer, "ada-1", None)
    assert identity.last_sign_in is not None
    # Someone else at the provider takes the name "dr.ada": not Ada's account.
    other = Client()
    sign_in(other, oidc, {"sub": "someone-else", "preferred_username": "DR.ADA", "groups": ["med-admins"]})
    assert signed_in_as(other) is None
    # Ada renamed at the provider: still her account.
    again = Client()
    sign_in(again, oidc, {"sub": "ada-1", "preferred_username": "ada.lovelace", "groups": ["med-physicians"]})
    assert signed_in_as(again) == "dr.ada"
    assert User.objects.count() == 1


def test_an_admin_links_an_existing_account_with_the_command_and_then_it_signs_in(oidc, client: Client) -> None:
    lin = make_user("dr.lin", role=Role.ADMIN)
    lin.email = "lin@hospital.example"
    lin.save()
    out = io.StringIO()
    call_command("accounts", "link-oidc", "dr.lin", "--subject", "lin-at-idp", stdout=out)
    assert "now reaches dr.lin" in out.getvalue()
    sign_in(client, oidc, {"sub": "lin-at-idp", "preferred_username": "lin", "email": "l.in@idp.example",
                           "groups": ["med-physicians"]})
    assert signed_in_as(client) == "dr.lin"
    lin.refresh_from_db()
    # The role is the mapped one, never more; the e-mail stays the one admins set.
    assert lin.profile.role == Role.PHYSICIAN and not lin.is_superuser and not lin.is_staff
    assert lin.email == "lin@hospital.example"
    call_command("accounts", "unlink-oidc", "dr.lin", stdout=io.StringIO())
    later = Client()
    sign_in(later, oidc, {"sub": "lin-at-idp", "preferred_username": "dr.lin", "groups": ["med-physicians"]})
    assert signed_in_as(later) is None


def test_a_superuser_or_staff_account_cannot_be_linked(oidc, admin1) -> None:
    with pytest.raises(CommandError, match="superuser or staff"):
        call_command("accounts", "link-oidc", "admin1", "--subject", "mallory-7", stdout=io.StringIO())
    staff = make_user("helpdesk", role=Role.RESEARCHER)
    staff.is_staff = True
    staff.save()
    with pytest.raises(CommandError, match="superuser or staff"):
        call_command("accounts", "link-oidc", "helpdesk", "--subject", "x", stdout=io.StringIO())
    assert not OIDCIdentity.objects.exists()


def test_an_account_made_superuser_after_it_was_linked_no_longer_signs_in_through_the_provider(
    oidc, client: Client
) -> None:
    sign_in(Client(), oidc, {"sub": "bo-1", "preferred_username": "dr.bo", "groups": ["med-physicians"]})
    User.objects.filter(username="dr.bo").update(is_superuser=True, is_staff=True)
    sign_in(client, oidc, {"sub": "bo-1", "preferred_username": "dr.bo", "groups": ["med-physicians"]})
    assert signed_in_as(client) is None


def test_one_identity_reaches_one_account_and_one_account_has_one_identity_per_provider(oidc) -> None:
    make_user("dr.a", role=Role.PHYSICIAN)
    make_user("dr.b", role=Role.PHYSICIAN)
    call_command("accounts", "link-oidc", "dr.a", "--subject", "s-1", stdout=io.StringIO())
    with pytest.raises(CommandError, match="already signs in as dr.a"):
        call_command("accounts", "link-oidc", "dr.b", "--subject", "s-1", stdout=io.StringIO())
    with pytest.raises(CommandError, match="already linked"):
        call_command("accounts", "link-oidc", "dr.a", "--subject", "s-2", stdout=io.StringIO())


def test_a_userinfo_answer_about_someone_else_is_refused(oidc, client: Client) -> None:
    sign_in(Client(), oidc, {"sub": "ada-1", "preferred_username": "dr.ada", "groups": ["med-physicians"]})
    oidc.userinfo_extra = {"sub": "ada-1"}
    sign_in(client, oidc, {"sub": "eve-9", "preferred_username": "eve", "groups": ["med-admins"]})
    assert signed_in_as(client) is None
    assert not User.objects.filter(username="eve").exists()


def test_an_id_token_from_another_issuer_is_refused(oidc, settings, client: Client) -> None:
    settings.OIDC_OP_ISSUER = "https://login.hospital.example"
    sign_in(client, oidc, {"sub": "ada-1", "preferred_username": "dr.ada", "groups": ["med-physicians"]})
    assert signed_in_as(client) is None and not User.objects.exists()


def test_a_username_claim_that_is_not_a_valid_username_is_refused_not_a_500(oidc, client: Client) -> None:
    done = sign_in(client, oidc, {"sub": "x-1", "preferred_username": "a" * 151, "groups": ["med-physicians"]})
    assert done.status_code == 302 and signed_in_as(client) is None


# --- The accounts API and the Django admin ------------------------------------------------------------


def test_admins_map_list_and_unlink_identities_through_the_api(oidc, admin, researcher, admin1) -> None:
    lin = make_user("dr.lin", role=Role.PHYSICIAN)
    url = reverse("accounts_api:account_oidc_identities", args=["dr.lin"])
    api = APIClient()
    api.force_authenticate(researcher)
    assert api.post(url, {"subject": "lin-at-idp"}).status_code == 403
    assert api.get(url).status_code == 403
    api.force_authenticate(admin)
    created = api.post(url, {"subject": "lin-at-idp"})
    assert created.status_code == 201, created.json()
    assert created.json()["issuer"] == oidc.issuer and created.json()["linked_by"] == "admin"
    assert [i["subject"] for i in api.get(url).json()] == ["lin-at-idp"]
    assert api.post(url, {"subject": "again"}).status_code == 400
    superuser = api.post(reverse("accounts_api:account_oidc_identities", args=["admin1"]), {"subject": "m"})
    assert superuser.status_code == 400 and "superuser" in superuser.content.decode()
    assert api.get(reverse("accounts_api:account_oidc_identities", args=["nobody"])).status_code == 404
    identity = lin.oidc_identities.get()
    assert api.delete(reverse("accounts_api:account_oidc_identity", args=["dr.lin", identity.pk])).status_code == 204
    assert not lin.oidc_identities.exists()


def test_the_django_admin_refuses_to_link_a_superuser_and_records_who_linked(oidc, admin1, client: Client) -> None:
    lin = make_user("dr.lin", role=Role.PHYSICIAN)
    client.force_login(admin1)
    add = reverse("admin:accounts_oidcidentity_add")
    refused = client.post(add, {"user": admin1.pk, "issuer": oidc.issuer, "subject": "m"})
    assert refused.status_code == 200 and b"superuser or staff" in refused.content
    done = client.post(add, {"user": lin.pk, "issuer": oidc.issuer, "subject": "lin-at-idp"})
    assert done.status_code == 302
    identity = OIDCIdentity.objects.get()
    assert (identity.user, identity.linked_by) == (lin, admin1)
