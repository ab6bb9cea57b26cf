"""Fixtures for grader tests: a local fake OpenAI-compatible server and grader configs pointing at it."""

from collections.abc import Iterator

import pytest

from devtools.fake_openai import FakeBehaviour, FakeOpenAIServer
from graders import services
from graders.models import GraderConfig, GraderKind

API_KEY_ENV = "MEDREVIEW_GRADER_KEY_TEST"  # the prefix GRADER_KEY_ENV_PREFIX asks for
API_KEY = "sk-test-SECRET-4f9b2c7e1d"  # a distinctive string so a leak anywhere is detectable


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    return API_KEY


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(FakeBehaviour()) as server:
        yield server


def make_config(
    base_url: str,
    *,
    kind: str = GraderKind.RUBRIC_GRADER,
    name: str | None = None,
    concurrency: int = 4,
    **overrides: object,
) -> GraderConfig:
    template = services.prompt_template_default(kind=kind)
    values: dict[str, object] = {
        "name": name or f"Test {kind}",
        "kind": kind,
        "base_url": base_url,
        "model": "fake-grader-1",
        "concurrency": concurrency,
        "timeout_seconds": 5.0,
        "max_attempts": 3,
        "backoff_base_seconds": 0.001,
        "api_key_env": API_KEY_ENV,
        "prompt": template,
    }
    values.update(overrides)
    return GraderConfig.objects.create(**values)


@pytest.fixture
def rubric_config(db, fake_server: FakeOpenAIServer, api_key: str) -> GraderConfig:
    return make_config(fake_server.base_url)
