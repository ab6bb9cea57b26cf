"""OpenID Connect sign-in against a local provider the test starts (devtools.oidc_provider): the code
flow end to end, claims mapped to roles, refusals for unmapped people and deactivated accounts.

Off by default: without OIDC_ENABLED there is no sign-in route and the login page offers none.
"""

from __future__ import annotations

import importlib
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, clear_url_caches, reverse

from accounts.models import Role
from accounts.services import account_deactivate
from devtools.oidc_provider import OIDCProvider

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def provider():
    with OIDCProvider(client_id="medreview-test", client_secret="s3cret-test") as running:
        yield running


def reload_urls() -> None:
    import medreview.urls

    importlib.reload(medreview.urls)
    clear_url_caches()


@pytest.fixture
def oidc(settings, provider: OIDCProvider):
    # Configured from the provider's discovery document, as docs/deployment.md tells an admin to do.
    discovery = requests.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=5).json()
    settings.OIDC_ENABLED = True
    settings.AUTHENTICATION_BACKENDS = [*django_settings.AUTHENTICATION_BACKENDS, "accounts.oidc.RoleMappingOIDCBackend"]
    settings.OIDC_RP_CLIENT_ID = "medreview-test"
    settings.OIDC_RP_CLIENT_SECRET = "s3cret-test"
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = discovery["authorization_endpoint"]
    settings.OIDC_OP_TOKEN_ENDPOINT = discovery["token_endpoint"]
    settings.OIDC_OP_USER_ENDPOINT = discovery["userinfo_endpoint"]
    settings.OIDC_OP_JWKS_ENDPOINT = discovery["jwks_uri"]
    settings.OIDC_ROLE_MAP = {"med-physicians": Role.PHYSICIAN, "med-seniors": Role.INSPECTOR,
                              "med-admins": Role.ADMIN}
    reload_urls()  # the sign-in routes exist only when OIDC_ENABLED
    yield provider
    settings.OIDC_ENABLED = False
    reload_urls()


def sign_in(client: Client, provider: OIDCProvider, user: dict) -> object:
    """Browser steps: start at medreview, 'approve' at the provider, come back with the code."""
    provider.next_user = user
    start = client.get(reverse("oidc_authentication_init"))
    assert start.status_code == 302 and start.url.startswith(provider.issuer + "/authorize?")
    query = parse_qs(urlsplit(start.url).query)
    assert query["client_id"] == ["medreview-test"] and "nonce" in query and "state" in query
    approved = requests.get(start.url, allow_redirects=False, timeout=5)
    assert approved.status_code == 302
    back = urlsplit(approved.headers["Location"])
    return client.get(back.path + "?" + back.query)


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
