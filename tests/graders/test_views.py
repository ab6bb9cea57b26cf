"""Grader pages: who may see them, what they show, and that they stay cheap."""

import pytest
from django.urls import reverse

from graders import services
from graders.models import GraderConfig, GraderKind, GradingJob, JobStatus, PromptTemplate
from tests.conftest import login
from tests.graders.conftest import API_KEY_ENV, make_config
from tests.graders.test_jobs import build_release, start_job

PAGES = [
    ("graders:job_list", False),
    ("graders:job_create", False),
    ("graders:config_list", False),
    ("graders:config_create", False),
    ("graders:config_edit", True),
    ("graders:job_detail", "job"),
    ("graders:job_progress", "job"),
]


@pytest.fixture
def job(rubric_config) -> GradingJob:
    return services.grading_job_create(config=rubric_config, selection={"release": build_release().pk}, created_by=None)


def _url(name: str, arg: object, job: GradingJob) -> str:
    if arg == "job":
        return reverse(name, args=[job.pk])
    if arg:
        return reverse(name, args=[job.config_id])
    return reverse(name)


@pytest.mark.parametrize(("name", "arg"), PAGES)
def test_it_forbids_every_grader_page_to_physicians(client, physician_a, inspector, outsider, job, name, arg):
    # Raters must never see grader output before inspection: even an inspector or an outsider gets 403.
    for user in (physician_a, inspector, outsider):
        login(client, user)
        assert client.get(_url(name, arg, job)).status_code == 403


@pytest.mark.parametrize(("name", "arg"), PAGES)
def test_it_redirects_anonymous_visitors_to_sign_in(client, job, name, arg):
    response = client.get(_url(name, arg, job))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", ["graders:config_list", "graders:config_create", "graders:config_edit"])
def test_it_keeps_grader_configs_to_admins(client, researcher, job, name):
    login(client, researcher)
    assert client.get(_url(name, name.endswith("edit"), job)).status_code == 403


@pytest.mark.parametrize("name", ["graders:job_cancel", "graders:job_resume", "graders:job_retry_failed"])
def test_it_accepts_only_post_for_job_actions(client, researcher, job, name):
    login(client, researcher)
    assert client.get(reverse(name, args=[job.pk])).status_code == 405


def test_it_answers_405_to_a_wrong_method_on_pages(client, admin, job):
    login(client, admin)
    assert client.post(reverse("graders:job_list")).status_code == 405
    assert client.post(reverse("graders:job_detail", args=[job.pk])).status_code == 405
    assert client.delete(reverse("graders:config_list")).status_code == 405


def test_it_answers_404_for_a_job_that_does_not_exist(client, researcher, db):
    login(client, researcher)
    assert client.get(reverse("graders:job_detail", args=[999999])).status_code == 404


def test_it_lists_jobs_for_researchers_with_a_bounded_number_of_queries(
    client, researcher, rubric_config, django_assert_max_num_queries
):
    login(client, researcher)
    release = build_release(cases=1)
    services.grading_job_create(config=rubric_config, selection={"release": release.pk}, created_by=researcher)
    with django_assert_max_num_queries(8) as small:
        response = client.get(reverse("graders:job_list"))
    assert response.status_code == 200
    assert rubric_config.name in response.content.decode()
    for _ in range(5):
        services.grading_job_create(config=rubric_config, selection={"release": release.pk}, created_by=researcher)
    with django_assert_max_num_queries(len(small.captured_queries)):
        client.get(reverse("graders:job_list"))


def test_it_shows_progress_figures_and_polls_while_the_job_runs(client, researcher, job, django_assert_max_num_queries):
    login(client, researcher)
    with django_assert_max_num_queries(10):
        response = client.get(reverse("graders:job_detail", args=[job.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert f"0 / {job.total}" in html
    assert 'hx-trigger="every 2s"' in html
    assert reverse("graders:job_cancel", args=[job.pk]) in html
    partial = client.get(reverse("graders:job_progress", args=[job.pk])).content.decode()
    assert partial.lstrip().startswith('<div id="job-progress"')
    assert "<html" not in partial


def test_it_stops_polling_and_shows_invalid_outputs_when_done(
    client, researcher, fake_server, rubric_config, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    from devtools.fake_openai import FakeBehaviour

    fake_server.behaviour = FakeBehaviour(mode="malformed")
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)
    login(client, researcher)
    with django_assert_max_num_queries(12) as small:
        html = client.get(reverse("graders:job_detail", args=[job.pk])).content.decode()
    assert "every 2s" not in html
    assert "Invalid outputs" in html
    assert "probably yes" in html  # the raw output is shown, escaped
    bigger = start_job(rubric_config, build_release(cases=6), django_capture_on_commit_callbacks)
    assert bigger.invalid == 36
    with django_assert_max_num_queries(len(small.captured_queries)):
        client.get(reverse("graders:job_detail", args=[bigger.pk]))


def test_it_starts_a_job_from_the_browser(client, researcher, rubric_config, fake_server, django_capture_on_commit_callbacks):
    release = build_release(cases=1)
    login(client, researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("graders:job_create"), {
            "config": rubric_config.pk, "selection": "release", "release": release.pk, "parallel_tasks": 2,
        })
    job = GradingJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("graders:job_detail", args=[job.pk])
    assert job.created_by == researcher
    job.refresh_from_db()
    assert (job.status, job.done) == (JobStatus.DONE, 6)


def test_it_names_the_missing_choice_in_the_job_form(client, researcher, rubric_config):
    login(client, researcher)
    response = client.post(reverse("graders:job_create"), {"config": rubric_config.pk, "selection": "study", "parallel_tasks": 2})
    assert response.status_code == 200
    assert "Choose the study to grade." in response.content.decode()
    assert not GradingJob.objects.exists()


def test_it_cancels_and_resumes_from_the_job_page(client, researcher, job, django_capture_on_commit_callbacks):
    login(client, researcher)
    response = client.post(reverse("graders:job_cancel", args=[job.pk]))
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("graders:job_resume", args=[job.pk]))
    job.refresh_from_db()
    assert (job.status, job.done) == (JobStatus.DONE, job.total)


def test_it_lets_an_admin_define_a_grader_with_the_default_prompt(client, admin, db):
    login(client, admin)
    response = client.post(reverse("graders:config_create"), {
        "name": "GPT-4.1 rubric grader", "kind": GraderKind.RUBRIC_GRADER, "base_url": "https://api.openai.com/v1",
        "model": "gpt-4.1", "temperature": 0, "max_tokens": 512, "concurrency": 8, "timeout_seconds": 60,
        "max_attempts": 5, "backoff_base_seconds": 1, "api_key_env": "MEDREVIEW_GRADER_KEY_OPENAI", "structured_output": "on",
    })
    assert response.status_code == 302
    config = GraderConfig.objects.get()
    assert config.prompt.version == "v1"
    assert "Objective Grader" in config.prompt.text
    assert config.temperature == 0


def test_it_refuses_a_key_in_place_of_the_variable_name(client, admin, db):
    login(client, admin)
    response = client.post(reverse("graders:config_create"), {
        "name": "Leaky", "kind": GraderKind.LLM_JUDGE, "base_url": "https://api.openai.com/v1", "model": "gpt-4.1",
        "temperature": 0, "max_tokens": 512, "concurrency": 8, "timeout_seconds": 60, "max_attempts": 5,
        "backoff_base_seconds": 1, "api_key_env": "sk-proj-abcdef0123456789",
    })
    assert response.status_code == 200
    assert "NAME of the environment variable" in response.content.decode()
    assert not GraderConfig.objects.exists()


def test_it_requires_a_new_prompt_version_when_the_text_changes(client, admin, fake_server, db):
    config = make_config(fake_server.base_url)
    login(client, admin)
    data = {
        "name": config.name, "kind": config.kind, "base_url": config.base_url, "model": config.model,
        "temperature": 0, "max_tokens": 512, "concurrency": 4, "timeout_seconds": 5, "max_attempts": 3,
        "backoff_base_seconds": 0.01, "api_key_env": API_KEY_ENV,
        "prompt_version": "v1", "prompt_text": config.prompt.text + "\nBe strict.",
    }
    response = client.post(reverse("graders:config_edit", args=[config.pk]), data)
    assert response.status_code == 200
    assert "give the edited prompt a new version" in response.content.decode()
    assert PromptTemplate.objects.get(kind=config.kind, version="v1").text == config.prompt.text

    response = client.post(reverse("graders:config_edit", args=[config.pk]), {**data, "prompt_version": "v2-strict"})
    assert response.status_code == 302
    config.refresh_from_db()
    assert config.prompt.version == "v2-strict"
    assert PromptTemplate.objects.filter(kind=config.kind).count() == 2


def test_it_refuses_a_prompt_of_another_kind(fake_server, db):
    from django.core.exceptions import ValidationError

    config = make_config(fake_server.base_url)
    config.prompt = services.prompt_template_default(kind=GraderKind.PAIRWISE_JUDGE)
    with pytest.raises(ValidationError, match="pairwise-judge prompt"):
        config.full_clean()


def test_it_creates_the_demo_graders_once(db):
    import io

    from demo.graders import DEMO_KEY_ENV, load_demo_graders

    load_demo_graders(stdout=io.StringIO())
    load_demo_graders(stdout=io.StringIO())
    configs = GraderConfig.objects.all()
    assert configs.count() == 4
    assert configs.filter(name="Demo rubric grader (fake server)", base_url="http://127.0.0.1:8765/v1").exists()
    assert set(configs.values_list("api_key_env", flat=True)) == {DEMO_KEY_ENV}


def test_it_tells_whether_the_key_variable_is_set_without_showing_it(client, admin, rubric_config, monkeypatch):
    from tests.graders.conftest import API_KEY

    login(client, admin)
    html = client.get(reverse("graders:config_list")).content.decode()
    assert '<span class="ok">yes</span>' in html
    assert API_KEY not in html
    monkeypatch.delenv(API_KEY_ENV)
    html = client.get(reverse("graders:config_list")).content.decode()
    assert "Not set in the web process" in html
