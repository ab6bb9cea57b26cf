"""The question-set judge as a grading job (LiveClin's Judge agent in-app): one call per question set,
per-MCQ verdicts stored as the pre-screen; retries, invalid outputs kept, resume without re-asking."""

import pytest

from devtools.fake_openai import FakeBehaviour
from graders import services
from graders.jobs import runner
from graders.kinds.question_set_judge import passed_prescreen_revisions
from graders.models import GraderKind, GradingJob, JobStatus, QuestionSetJudgement, Verdict
from tests.graders.conftest import make_config
from tests.liveclin.builders import CAPTION_MARKER, REPORT_MARKER, import_liveclin

pytestmark = pytest.mark.django_db


def start(config, release, capture, *, parallel_tasks: int = 1) -> GradingJob:
    with capture(execute=True):
        job = services.grading_job_create(config=config, selection={"release": release.pk}, created_by=None,
                                          parallel_tasks=parallel_tasks)
    job.refresh_from_db()
    return job


@pytest.fixture
def judge_config(fake_server, api_key):
    return make_config(fake_server.base_url, kind=GraderKind.QUESTION_SET_JUDGE)


def test_it_judges_each_question_set_once_with_both_checks_per_mcq(
    judge_config, fake_server, django_capture_on_commit_callbacks
):
    release = import_liveclin(3, mcqs=3)
    job = start(judge_config, release, django_capture_on_commit_callbacks)
    assert (job.status, job.total, job.done, job.invalid, job.failed) == (JobStatus.DONE, 3, 3, 0, 0)
    assert len(fake_server.requests) == 3
    prompt = fake_server.requests[0].body["messages"][1]["content"]
    privileged, visible = prompt.split("<test_taker_visible_information>")
    assert REPORT_MARKER in privileged and CAPTION_MARKER in privileged
    assert REPORT_MARKER not in visible and CAPTION_MARKER not in visible
    for judgement in QuestionSetJudgement.objects.filter(run=job.run).select_related("question_set"):
        mcq_ids = list(judgement.question_set.mcqs.order_by("order").values_list("pk", flat=True))
        assert [c["mcq"] for c in judgement.checks] == mcq_ids
        assert [c["position"] for c in judgement.checks] == [1, 2, 3]
        passed = all(c["factual"] and c["solvability"] for c in judgement.checks)
        assert judgement.verdict == (Verdict.MET if passed else Verdict.NOT_MET)
    passed_sets = set(QuestionSetJudgement.objects.filter(run=job.run, verdict=Verdict.MET)
                      .values_list("question_set__revision_id", flat=True))
    all_revisions = set(release.case_revisions.values_list("pk", flat=True))
    assert passed_prescreen_revisions(all_revisions) == passed_sets


def test_it_keeps_an_unreadable_answer_as_invalid(db, fake_server, api_key, django_capture_on_commit_callbacks):
    fake_server.behaviour.mode = "malformed"
    config = make_config(fake_server.base_url, kind=GraderKind.QUESTION_SET_JUDGE)
    job = start(config, import_liveclin(1), django_capture_on_commit_callbacks)
    judgement = QuestionSetJudgement.objects.get(run=job.run)
    assert (job.done, job.invalid, judgement.verdict) == (1, 1, Verdict.INVALID)
    assert judgement.raw_output.startswith("I think the response")
    assert judgement.error.startswith("Invalid output")


def test_it_retries_a_429(db, api_key, django_capture_on_commit_callbacks):
    from devtools.fake_openai import FakeOpenAIServer

    with FakeOpenAIServer(FakeBehaviour(fail_429_times=1)) as server:
        config = make_config(server.base_url, kind=GraderKind.QUESTION_SET_JUDGE)
        job = start(config, import_liveclin(2), django_capture_on_commit_callbacks)
    assert (job.status, job.done, job.retries, job.failed) == (JobStatus.DONE, 2, 2, 0)


def test_a_killed_job_resumes_without_asking_a_stored_set_again(
    judge_config, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    state = {"armed": True}

    def boom(job_id: int, stored: int) -> None:
        if state["armed"] and stored >= 2:
            state["armed"] = False
            raise RuntimeError("worker killed")

    monkeypatch.setattr(runner, "_after_flush", boom)
    monkeypatch.setattr(runner, "FLUSH_EVERY", 2)
    job = start(judge_config, import_liveclin(5), django_capture_on_commit_callbacks)
    stored = QuestionSetJudgement.objects.filter(run=job.run).count()
    assert job.status == JobStatus.RUNNING and 0 < stored < 5
    GradingJob.objects.filter(pk=job.pk).update(heartbeat_at=job.heartbeat_at.replace(year=2000))
    job.refresh_from_db()
    asked = len(fake_server.requests)
    with django_capture_on_commit_callbacks(execute=True):
        services.grading_job_resume(job=job)
    job.refresh_from_db()
    assert (job.status, job.done) == (JobStatus.DONE, 5)
    assert QuestionSetJudgement.objects.filter(run=job.run).count() == 5
    assert len(fake_server.requests) - asked == 5 - stored
