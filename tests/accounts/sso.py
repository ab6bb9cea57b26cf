"""Single sign-on in tests: a local provider (devtools.oidc_provider) and the browser's steps."""

from __future__ import annotations

import importlib
from urllib.parse import parse_qs, urlsplit

import requests
from django.test import Client
from django.urls import clear_url_caches, reverse

from devtools.oidc_provider import OIDCProvider

CLIENT_ID, CLIENT_SECRET = "medreview-test", "s3cret-test"


def reload_urls() -> None:
    import medreview.urls

    importlib.reload(medreview.urls)
    clear_url_caches()


def configure(settings, provider: OIDCProvider) -> None:  # noqa: ANN001 (pytest-django's settings)
    """From the provider's discovery document, as docs/deployment.md tells an admin to do."""
    discovery = requests.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=5).json()
    settings.OIDC_ENABLED = True
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "accounts.oidc.RoleMappingOIDCBackend"]
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_OP_ISSUER = discovery["issuer"]
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = discovery["authorization_endpoint"]
    settings.OIDC_OP_TOKEN_ENDPOINT = discovery["token_endpoint"]
    settings.OIDC_OP_USER_ENDPOINT = discovery["userinfo_endpoint"]
    settings.OIDC_OP_JWKS_ENDPOINT = discovery["jwks_uri"]
    settings.OIDC_ROLE_MAP = {"med-physicians": "physician", "med-seniors": "inspector", "med-admins": "admin"}
    reload_urls()  # the sign-in routes exist only when OIDC_ENABLED


def sign_in(client: Client, provider: OIDCProvider, user: dict) -> object:
    """Browser steps: start at medreview, 'approve' at the provider, come back with the code."""
    provider.next_user = user
    start = client.get(reverse("oidc_authentication_init"))
    assert start.status_code == 302 and start.url.startswith(provider.issuer + "/authorize?")
    query = parse_qs(urlsplit(start.url).query)
    assert query["client_id"] == [CLIENT_ID] and "nonce" in query and "state" in query
    approved = requests.get(start.url, allow_redirects=False, timeout=5)
    assert approved.status_code == 302
    back = urlsplit(approved.headers["Location"])
    return client.get(back.path + "?" + back.query)


def signed_in_as(client: Client) -> str | None:
    """The username the client's session belongs to, or None."""
    from django.contrib.auth import get_user_model

    user_id = client.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id).get_username() if user_id else None
