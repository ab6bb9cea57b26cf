"""Issue 9, finding 7: schemathesis over the whole API against the live test server, with an admin's
and a physician's token: zero server errors and zero responses that break the published schema.

Bounded: SCHEMATHESIS_EXAMPLES generated requests per operation and role (default 6), derandomized
so a run is repeatable. Tasks are queued but not run (no grading job calls out of the test).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module

import pytest
import schemathesis
from django.apps import apps as django_apps
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import make_cases, running_study
from tests.conftest import make_user
from tests.factories import make_response

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))
CHECKS = [not_a_server_error, response_schema_conformance]

pytestmark = pytest.mark.django_db(transaction=True)


def api_token(user) -> str:
    """A token as a script would hold it (created the way the app issues them)."""
    from accounts.tokens import token_create

    return token_create(user=user)[1]


@pytest.fixture
def seeded(settings):
    # A study with items, a response, an open claim: ids that exist, so generated requests reach
    # the code behind the 404s as well as the 404s themselves.
    # A transactional test's flush removes the scales and tasks shipped by migration: ship them again.
    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend",
                                  "QUEUES": ["default", "grading", "imports"]}}
    admin = make_user("schema_admin", role="admin", specialties=[], languages=[])
    physician = make_user("schema_physician", role="physician", rank="attending")
    revisions = make_cases(3)
    make_response(revisions[0])
    study = running_study(admin, raters=[physician], inspectors=[], tasks=["narrative-quality"])
    assignment_claim_next(study=study, rater=physician)
    return {"admin": admin, "physician": physician}


def run_every_operation(base_url: str, token: str) -> list[str]:
    headers = {"Authorization": f"Token {token}"}
    # Generating the schema takes seconds of CPU; on a loaded machine more than requests' 10 s default.
    schema = schemathesis.openapi.from_url(f"{base_url}/api/schema/?format=json", headers=headers, timeout=180)
    problems: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        probe = _probe(operation, base_url, headers, problems)
        probe()
    return problems


def _probe(operation, base_url: str, headers: dict[str, str], problems: list[str]) -> Callable[[], None]:
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy())
    def probe(case) -> None:
        response = case.call(base_url=base_url, headers=headers, timeout=30)
        try:
            case.validate_response(response, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as exc:  # collected, so one run reports every failure
            details = [str(e) for e in exc.exceptions] if isinstance(exc, BaseExceptionGroup) else [str(exc)]
            problems.extend(f"{operation.label}: {response.status_code}: {d[:300]}" for d in details)

    return probe


@pytest.mark.parametrize("persona", ["admin", "physician"])
def test_no_server_error_and_no_schema_violation(live_server, seeded, persona: str) -> None:
    problems = run_every_operation(live_server.url, api_token(seeded[persona]))
    assert problems == []
