"""An admin runs a translation job over a study through an OpenAI-compatible endpoint (the fake
server): it fills translations, retries failed calls, stores empty or non-Chinese answers as invalid
(never shown), resumes without asking twice, counts tokens and cost, and never stores the key."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Item
from cases.models import TextTranslation
from cases.translations import shown_translations, source_texts
from devtools.fake_openai import FakeBehaviour, FakeOpenAIServer
from graders.models import JobStatus
from graders.translation.services import (
    translation_job_create,
    translation_job_resume,
    translation_job_run,
)
from tests.annotation.builders import running_study
from tests.factories import make_case, make_release

pytestmark = pytest.mark.django_db

KEY_ENV = "MEDREVIEW_GRADER_KEY_TRANSLATE"
KEY = "sk-test-TRANSLATE-7c1e0a"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer(FakeBehaviour()) as server:
        yield server


def _english_study(admin, physician_a, *, narrative: str = "Three days of fever and cough."):
    release = make_release(dataset_name="LiveClin", label="2025H1")
    make_case(release=release, narrative=narrative, criteria=[("Asks about travel", 5, "Accuracy")])
    return running_study(admin, raters=[physician_a], dataset="LiveClin")


def _job(server, study, admin, **kw):
    return translation_job_create(
        selection={"study": study.pk}, base_url=server.base_url, model="fake-o3", api_key_env=KEY_ENV,
        created_by=admin, language="zh-Hans", price_input_per_1k=Decimal("0.002"),
        price_output_per_1k=Decimal("0.008"), backoff_base_seconds=0.001, enqueue=False, **kw,
    )


def test_it_fills_chinese_translations_for_every_field_of_a_study(server, admin, physician_a):
    study = _english_study(admin, physician_a)
    job = _job(server, study, admin)
    revision = Item.objects.get(study=study).revision
    assert job.total == len(source_texts(revision)) == 4  # narrative, query, advice, 1 criterion
    translation_job_run(job_id=job.pk, sleep=lambda s: None)
    job.refresh_from_db()
    assert (job.status, job.done, job.invalid, job.failed) == (JobStatus.DONE, 4, 0, 0)
    shown = shown_translations(revision.pk, "zh-Hans")
    assert set(shown) == set(source_texts(revision))
    one = shown["narrative"]
    assert (one.source, one.engine, one.prompt_version, one.variant, one.job_id) == (
        TextTranslation.Source.MACHINE, "fake-o3", "translate-v1", "machine:fake-o3", job.pk)
    assert one.text.startswith("（模拟译文")
    assert job.input_tokens > 0 and job.output_tokens > 0 and job.estimated_cost > 0
    # The key is read from the environment and never stored anywhere on the job.
    assert KEY not in str({f.name: getattr(job, f.name) for f in job._meta.fields})


def test_a_failed_call_is_retried(server, admin, physician_a):
    study = _english_study(admin, physician_a)
    server.behaviour = FakeBehaviour(fail_429_times=1)
    job = _job(server, study, admin)
    translation_job_run(job_id=job.pk, sleep=lambda s: None)
    job.refresh_from_db()
    assert (job.done, job.failed, job.retries) == (4, 0, 4)


def test_an_empty_or_english_answer_is_stored_invalid_and_never_shown(server, admin, physician_a):
    study = _english_study(admin, physician_a, narrative="[[english]] Three days of fever.")
    revision = Item.objects.get(study=study).revision
    revision.core_request = "[[empty]] Do I need antibiotics?"
    revision.save(update_fields=["core_request"])
    job = _job(server, study, admin)
    translation_job_run(job_id=job.pk, sleep=lambda s: None)
    job.refresh_from_db()
    assert (job.done, job.invalid) == (4, 2)
    problems = dict(TextTranslation.objects.filter(status="invalid").values_list("key", "problem"))
    assert problems == {"narrative": "not Chinese", "query": "empty"}
    criterion_key = next(k for k in source_texts(revision) if k.startswith("criterion:"))
    assert set(shown_translations(revision.pk, "zh-Hans")) == {"advice", criterion_key}


def test_a_job_that_failed_resumes_and_asks_only_for_what_is_missing(server, admin, physician_a):
    study = _english_study(admin, physician_a)
    server.behaviour = FakeBehaviour(fail_500_times=-1)
    job = _job(server, study, admin, max_attempts=2)
    translation_job_run(job_id=job.pk, sleep=lambda s: None)
    job.refresh_from_db()
    assert (job.status, job.done, job.failed) == (JobStatus.FAILED, 0, 4)
    server.behaviour = FakeBehaviour()
    before = len(server.requests)
    translation_job_resume(job=job, enqueue=False)
    translation_job_run(job_id=job.pk, sleep=lambda s: None)
    job.refresh_from_db()
    assert (job.status, job.done, job.failed) == (JobStatus.DONE, 4, 0)
    assert len(server.requests) - before == 4
    # Nothing left: a new job over the same study and variant is refused.
    with pytest.raises(ValidationError):
        _job(server, study, admin)


def test_it_refuses_a_key_variable_or_host_the_policy_forbids(server, admin, physician_a):
    study = _english_study(admin, physician_a)
    with pytest.raises(ValidationError) as exc:
        translation_job_create(selection={"study": study.pk}, base_url="https://evil.example/v1", model="m",
                               api_key_env="SECRET_KEY", created_by=admin, enqueue=False)
    assert set(exc.value.message_dict) == {"base_url", "api_key_env"}
