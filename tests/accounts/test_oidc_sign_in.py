"""OpenID Connect sign-in against a local provider the test starts (devtools.oidc_provider): the code
flow end to end, claims mapped to roles, refusals for unmapped people and deactivated accounts.

Off by default: without OIDC_ENABLED there is no sign-in route and the login page offers none.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, reverse

from accounts.models import Role
from accounts.services import account_deactivate
from devtools.oidc_provider import OIDCProvider
from tests.accounts.sso import sign_in

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_a_physician_signs_in_with_the_identity_provider_and_gets_the_mapped_role(oidc, client: Client) -> None:
    done = sign_in(client, oidc, {"sub": "abc-1", "preferred_username": "dr.ada", "email": "ada@hospital.example",
                                  "given_name": "Ada", "groups": ["staff", "med-physicians"]})
    assert done.status_code == 302 and done.url == "/"
    user = User.objects.select_related("profile").get(username="dr.ada")
    assert user.profile.role == Role.PHYSICIAN and user.email == "ada@hospital.example"
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 200
    assert {"/authorize", "/token", "/userinfo", "/jwks"} <= set(oidc.requests)


def test_the_role_follows_the_provider_at_the_next_sign_in(oidc, client: Client) -> None:
    sign_in(client, oidc, {"sub": "s", "preferred_username": "dr.bo", "groups": ["med-physicians"]})
    sign_in(Client(), oidc, {"sub": "s", "preferred_username": "dr.bo", "groups": ["med-physicians", "med-seniors"]})
    assert User.objects.get(username="dr.bo").profile.role == Role.INSPECTOR


def test_someone_in_no_mapped_group_is_refused(oidc, client: Client) -> None:
    done = sign_in(client, oidc, {"sub": "x", "preferred_username": "visitor", "groups": ["staff"]})
    assert done.status_code == 302 and done.url.startswith(reverse("login"))
    assert "Single sign-on did not let you in" in client.get(done.url).content.decode()
    assert not User.objects.filter(username="visitor").exists()
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 302


def test_a_deactivated_account_cannot_sign_in_through_the_provider(oidc, client: Client) -> None:
    sign_in(Client(), oidc, {"sub": "d", "preferred_username": "dr.gone", "groups": ["med-physicians"]})
    account_deactivate(user=User.objects.get(username="dr.gone"))
    sign_in(client, oidc, {"sub": "d", "preferred_username": "dr.gone", "groups": ["med-physicians"]})
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 302


def test_a_forged_id_token_is_refused(oidc, client: Client) -> None:
    # Another key signs the token: the signature check against the provider's JWKS must fail.
    genuine_sign = oidc.sign
    impostor = OIDCProvider()
    impostor.kid = oidc.kid
    oidc.sign = impostor.sign  # type: ignore[method-assign]
    try:
        done = sign_in(client, oidc, {"sub": "f", "preferred_username": "mallory", "groups": ["med-admins"]})
    except Exception:  # a refusal may surface as an error page
        done = None
    finally:
        oidc.sign = genuine_sign  # type: ignore[method-assign]
    assert not User.objects.filter(username="mallory").exists()
    assert done is None or done.status_code in (302, 400, 403)


def test_single_sign_on_is_off_by_default(client: Client, settings) -> None:
    assert settings.OIDC_ENABLED is False
    assert "accounts.oidc.RoleMappingOIDCBackend" not in settings.AUTHENTICATION_BACKENDS
    with pytest.raises(NoReverseMatch):
        reverse("oidc_authentication_init")
    assert b"hospital account" not in client.get(reverse("login")).content


def test_the_login_page_offers_single_sign_on_when_enabled(oidc, client: Client) -> None:
    page = client.get(reverse("login"))
    assert b"hospital account" in page.content
    assert reverse("oidc_authentication_init").encode() in page.content
