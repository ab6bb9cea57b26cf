import pytest

from devtools.oidc_provider import OIDCProvider
from tests.accounts.sso import CLIENT_ID, CLIENT_SECRET, configure, reload_urls


@pytest.fixture
def provider():
    with OIDCProvider(client_id=CLIENT_ID, client_secret=CLIENT_SECRET) as running:
        yield running


@pytest.fixture
def oidc(settings, provider: OIDCProvider):
    configure(settings, provider)
    yield provider
    settings.OIDC_ENABLED = False
    reload_urls()
