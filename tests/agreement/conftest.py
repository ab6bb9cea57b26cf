import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_report_cache():
    # Reports are cached by selection and label fingerprint; ids repeat across rolled-back tests.
    cache.clear()
    yield
    cache.clear()
