"""The graders API: configs for admins, jobs for admins and researchers, never a key."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.tokens import token_create
from graders import services
from graders.models import GraderConfig, GraderKind, GradingJob, JobStatus
from tests.graders.conftest import API_KEY_ENV
from tests.graders.test_jobs import build_release


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def test_it_lets_an_admin_create_a_grader_and_shows_only_the_variable_name(api, admin):
    api.force_authenticate(admin)
    response = api.post(reverse("graders_api:config_list"), {
        "name": "Qwen judge", "kind": GraderKind.LLM_JUDGE, "base_url": "http://vllm.local:8000/v1",
        "model": "qwen3-8b", "api_key_env": "MEDREVIEW_GRADER_KEY_VLLM", "concurrency": 16,
    }, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["api_key_env"] == "MEDREVIEW_GRADER_KEY_VLLM"
    assert body["prompt_version"] == "v1"
    assert body["temperature"] == 0
    assert not any("key" in k and k != "api_key_env" for k in body)
    assert GraderConfig.objects.get().concurrency == 16


def test_it_rejects_an_invalid_variable_name(api, admin):
    api.force_authenticate(admin)
    response = api.post(reverse("graders_api:config_list"), {
        "name": "Bad", "kind": GraderKind.LLM_JUDGE, "base_url": "http://vllm.local:8000/v1",
        "model": "m", "api_key_env": "sk-live-1234567890abcdef",
    }, format="json")
    assert response.status_code == 400
    assert "api_key_env" in response.json()
    assert not GraderConfig.objects.exists()


def test_it_refuses_to_rewrite_a_prompt_version(api, admin, rubric_config):
    api.force_authenticate(admin)
    url = reverse("graders_api:config_detail", args=[rubric_config.pk])
    response = api.patch(url, {"prompt_text": rubric_config.prompt.text + " Be brief."}, format="json")
    assert response.status_code == 400
    assert "prompt_version" in response.json()
    response = api.patch(url, {"prompt_text": rubric_config.prompt.text + " Be brief.", "prompt_version": "v2"}, format="json")
    assert response.status_code == 200
    assert response.json()["prompt_version"] == "v2"


def test_it_keeps_configs_writable_by_admins_only(api, researcher, rubric_config):
    api.force_authenticate(researcher)
    assert api.get(reverse("graders_api:config_list")).status_code == 200
    assert api.post(reverse("graders_api:config_list"), {}, format="json").status_code == 403
    assert api.patch(reverse("graders_api:config_detail", args=[rubric_config.pk]), {}, format="json").status_code == 403
    assert api.delete(reverse("graders_api:config_detail", args=[rubric_config.pk])).status_code == 403


def test_it_refuses_to_delete_a_grader_with_jobs(api, admin, rubric_config):
    services.grading_job_create(config=rubric_config, selection={"release": build_release().pk}, created_by=None)
    api.force_authenticate(admin)
    assert api.delete(reverse("graders_api:config_detail", args=[rubric_config.pk])).status_code == 409


@pytest.mark.parametrize("name", ["graders_api:config_list", "graders_api:job_list"])
def test_it_forbids_the_api_to_physicians_and_anonymous_callers(api, physician_a, name):
    assert api.get(reverse(name)).status_code in (401, 403)
    api.force_authenticate(physician_a)
    assert api.get(reverse(name)).status_code == 403


def test_it_answers_405_to_a_wrong_method(api, researcher, rubric_config):
    job = services.grading_job_create(config=rubric_config, selection={"release": build_release().pk}, created_by=None)
    api.force_authenticate(researcher)
    assert api.get(reverse("graders_api:job_cancel", args=[job.pk])).status_code == 405
    assert api.delete(reverse("graders_api:job_detail", args=[job.pk])).status_code == 405


def test_it_starts_follows_cancels_and_resumes_a_job_with_a_token(
    api, researcher, rubric_config, fake_server, django_capture_on_commit_callbacks
):
    _, key = token_create(user=researcher)  # hashed, expiring (django-rest-knox)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    release = build_release(cases=1)
    response = api.post(reverse("graders_api:job_list"), {"config": rubric_config.pk, "release": release.pk}, format="json")
    assert response.status_code == 201, response.content
    job_id = response.json()["id"]
    assert response.json()["status"] == JobStatus.QUEUED
    assert response.json()["total"] == 6

    response = api.post(reverse("graders_api:job_cancel", args=[job_id]))
    assert response.json()["status"] == JobStatus.CANCELLED
    assert api.post(reverse("graders_api:job_cancel", args=[job_id])).status_code == 409

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(reverse("graders_api:job_resume", args=[job_id]))
    assert response.status_code == 200
    detail = api.get(reverse("graders_api:job_detail", args=[job_id])).json()
    assert (detail["status"], detail["done"], detail["invalid"], detail["failed"]) == ("done", 6, 0, 0)
    assert detail["input_tokens"] > 0
    assert [j["id"] for j in api.get(reverse("graders_api:job_list")).json()] == [job_id]


def test_it_names_the_problem_with_a_bad_selection(api, researcher, rubric_config):
    api.force_authenticate(researcher)
    response = api.post(reverse("graders_api:job_list"), {"config": rubric_config.pk}, format="json")
    assert response.status_code == 400
    assert "exactly one of study, release, or dataset" in str(response.json())
    response = api.post(reverse("graders_api:job_list"), {"config": rubric_config.pk, "release": 424242}, format="json")
    assert response.status_code == 400
    assert "release" in response.json()
    assert not GradingJob.objects.exists()


def test_it_grades_models_responses_in_a_dataset(api, researcher, rubric_config):
    release = build_release(cases=2, models=("model-x", "model-y"))
    api.force_authenticate(researcher)
    response = api.post(reverse("graders_api:job_list"), {
        "config": rubric_config.pk, "dataset": release.dataset_id, "models": ["model-y"],
    }, format="json")
    assert response.status_code == 201
    assert response.json()["total"] == 6  # 2 cases x 3 criteria, one model


def test_it_documents_the_endpoints_in_the_openapi_schema(api, researcher):
    api.force_authenticate(researcher)
    schema = api.get(reverse("api-schema"), HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in ("/api/graders/configs/", "/api/graders/jobs/", "/api/graders/jobs/{id}/cancel/", "/api/graders/jobs/{id}/resume/"):
        assert path in paths
    assert API_KEY_ENV not in str(schema)
