"""Grading jobs end to end against the local fake endpoint (immediate task backend, no network)."""

from typing import Any

import pytest
from django.db.models import Count

from cases.models import Release
from devtools.fake_openai import FakeBehaviour, expected_met, expected_score
from graders import services
from graders.jobs import runner
from graders.models import (
    GraderConfig,
    GraderDecision,
    GraderKind,
    GradingChunk,
    GradingJob,
    JobStatus,
    JudgeScore,
    PairwiseJudgement,
    Verdict,
)
from tests.factories import make_case, make_release, make_response
from tests.graders.conftest import make_config


def build_release(*, cases: int = 2, models: tuple[str, ...] = ("model-x", "model-y")) -> Release:
    release = make_release()
    for i in range(cases):
        revision = make_case(release=release, narrative=f"Case {i}: three days of fever and cough.")
        for name in models:
            make_response(revision, model_name=name, text=f"{name} says rest and fluids for case {i}.")
    return release


def start_job(
    config: GraderConfig, release: Release, capture: Any, *, parallel_tasks: int = 2, user: Any = None
) -> GradingJob:
    with capture(execute=True):
        job = services.grading_job_create(
            config=config, selection={"release": release.pk}, created_by=user, parallel_tasks=parallel_tasks
        )
    job.refresh_from_db()
    return job


def test_it_grades_every_response_criterion_once_with_the_servers_verdicts(
    rubric_config, fake_server, django_capture_on_commit_callbacks
):
    release = build_release()
    job = start_job(rubric_config, release, django_capture_on_commit_callbacks)

    assert job.status == JobStatus.DONE
    assert (job.total, job.done, job.invalid, job.failed, job.retries) == (12, 12, 0, 0, 0)
    decisions = GraderDecision.objects.filter(run=job.run).select_related("criterion")
    assert decisions.count() == 12
    for d in decisions:
        assert d.verdict == (Verdict.MET if expected_met(d.criterion.text) else Verdict.NOT_MET)
        assert d.raw_output.startswith("{")
        assert d.reasoning
        assert d.attempts == 1
        assert d.input_tokens and d.output_tokens
        assert d.latency_ms is not None
    assert job.input_tokens == sum(d.input_tokens for d in decisions)
    assert len(fake_server.requests) == 12
    assert job.run.grader_model == "fake-grader-1"
    assert job.run.prompt_version == "v1"


def test_it_sends_one_criterion_per_call_with_the_negative_criterion_logic(
    rubric_config, fake_server, api_key, django_capture_on_commit_callbacks
):
    release = build_release(cases=1, models=("model-x",))
    start_job(rubric_config, release, django_capture_on_commit_callbacks)

    assert {r.path for r in fake_server.requests} == {"/v1/chat/completions"}
    assert {r.authorization for r in fake_server.requests} == {f"Bearer {api_key}"}
    bodies = [r.body for r in fake_server.requests]
    # What an OpenAI-compatible endpoint is sent, and nothing more.
    assert all(set(b) == {"model", "messages", "temperature", "max_tokens", "response_format"} for b in bodies)
    assert all(b["model"] == "fake-grader-1" and b["max_tokens"] == rubric_config.max_tokens for b in bodies)
    assert all([m["role"] for m in b["messages"]] == ["system", "user"] for b in bodies)
    assert all(b["response_format"]["type"] == "json_schema" for b in bodies)
    users = [b["messages"][1]["content"] for b in bodies]
    assert all(u.count("<criterion") == 1 for u in users)
    assert any('points="-5"' in u and "Recommends antibiotics" in u for u in users)
    assert "COMMITS the error" in bodies[0]["messages"][0]["content"]
    assert all(b["temperature"] == 0 for b in bodies)


@pytest.mark.parametrize("mode", ["fence", "list"])
def test_it_parses_json_in_a_markdown_fence_and_the_livemedbench_list_form(
    mode, rubric_config, fake_server, django_capture_on_commit_callbacks
):
    fake_server.behaviour = FakeBehaviour(mode=mode)
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)

    assert (job.done, job.invalid) == (6, 0)
    for d in GraderDecision.objects.filter(run=job.run).select_related("criterion"):
        assert d.verdict == (Verdict.MET if expected_met(d.criterion.text) else Verdict.NOT_MET)


def test_it_keeps_malformed_output_as_invalid(rubric_config, fake_server, django_capture_on_commit_callbacks):
    fake_server.behaviour = FakeBehaviour(mode="malformed")
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)

    assert job.status == JobStatus.DONE
    assert (job.done, job.invalid, job.failed) == (6, 6, 0)
    decision = GraderDecision.objects.filter(run=job.run).first()
    assert decision.verdict == Verdict.INVALID
    assert decision.raw_output == "I think the response mostly covers it, so probably yes."
    assert "Invalid output" in decision.error


def test_it_retries_a_429_and_counts_the_retry(rubric_config, fake_server, django_capture_on_commit_callbacks):
    fake_server.behaviour = FakeBehaviour(fail_429_times=1)
    job = start_job(rubric_config, build_release(cases=1, models=("model-x",)), django_capture_on_commit_callbacks)

    assert (job.done, job.failed, job.invalid, job.retries) == (3, 0, 0, 3)
    assert set(GraderDecision.objects.filter(run=job.run).values_list("attempts", flat=True)) == {2}
    assert len(fake_server.requests) == 6


def test_it_records_a_failed_decision_after_repeated_5xx_and_goes_on(
    rubric_config, fake_server, django_capture_on_commit_callbacks
):
    fake_server.behaviour = FakeBehaviour(fail_500_times=-1)
    job = start_job(rubric_config, build_release(cases=1, models=("model-x",)), django_capture_on_commit_callbacks)

    assert job.status == JobStatus.DONE
    assert (job.done, job.failed, job.retries) == (3, 3, 6)
    decision = GraderDecision.objects.filter(run=job.run).first()
    assert decision.verdict == Verdict.FAILED
    assert decision.attempts == 3
    assert "HTTP 500" in decision.error


def test_it_retries_timeouts_then_records_failed_and_goes_on(
    db, fake_server, api_key, django_capture_on_commit_callbacks
):
    config = make_config(fake_server.base_url, timeout_seconds=0.2, max_attempts=2)
    fake_server.behaviour = FakeBehaviour(delay_seconds=0.6)
    release = build_release(cases=1, models=("model-x",))
    job = start_job(config, release, django_capture_on_commit_callbacks)

    assert job.status == JobStatus.DONE
    assert (job.done, job.failed, job.retries) == (3, 3, 3)
    assert all("Timed out" in e for e in GraderDecision.objects.filter(run=job.run).values_list("error", flat=True))


def test_it_retries_only_the_failed_decisions_on_request(
    rubric_config, fake_server, django_capture_on_commit_callbacks
):
    fake_server.behaviour = FakeBehaviour(fail_500_times=-1)
    job = start_job(rubric_config, build_release(cases=1, models=("model-x",)), django_capture_on_commit_callbacks)
    fake_server.behaviour = FakeBehaviour()

    with django_capture_on_commit_callbacks(execute=True):
        services.grading_job_retry_failed(job=job)
    job.refresh_from_db()

    assert (job.status, job.done, job.failed) == (JobStatus.DONE, 3, 0)
    assert GraderDecision.objects.filter(run=job.run, verdict=Verdict.FAILED).count() == 0


def test_it_falls_back_to_plain_prompting_when_json_schema_is_rejected_and_remembers(
    rubric_config, fake_server, django_capture_on_commit_callbacks
):
    fake_server.behaviour = FakeBehaviour(reject_json_schema=True)
    job = start_job(
        rubric_config, build_release(cases=1, models=("model-x",)), django_capture_on_commit_callbacks, parallel_tasks=4
    )

    assert (job.done, job.invalid, job.failed) == (3, 0, 0)
    rubric_config.refresh_from_db()
    assert rubric_config.structured_output_rejected
    assert not rubric_config.uses_structured_output

    before = len(fake_server.requests)
    start_job(rubric_config, build_release(cases=1, models=("model-x",)), django_capture_on_commit_callbacks)
    later = fake_server.requests[before:]
    assert len(later) == 3
    assert all("response_format" not in r.body for r in later)


def _kill_after(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Simulate a worker dying once n answers of the job are stored (the exception ends the runner)."""
    state = {"armed": True}

    def boom(job_id: int, stored: int) -> None:
        if state["armed"] and stored >= n:
            state["armed"] = False
            raise RuntimeError("worker killed")

    monkeypatch.setattr(runner, "_after_flush", boom)
    monkeypatch.setattr(runner, "FLUSH_EVERY", 2)


def test_it_resumes_a_killed_job_without_duplicate_or_missing_decisions(
    rubric_config, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    _kill_after(monkeypatch, 2)
    release = build_release(cases=3)
    job = start_job(rubric_config, release, django_capture_on_commit_callbacks, parallel_tasks=1)

    # The runner died: the job still says running, part of the decisions are stored.
    assert job.status == JobStatus.RUNNING
    stored_before = GraderDecision.objects.filter(run=job.run).count()
    assert 0 < stored_before < job.total
    assert not job.can_resume  # its heartbeat is fresh: a live worker might still be on it
    GradingJob.objects.filter(pk=job.pk).update(heartbeat_at=job.heartbeat_at.replace(year=2000))
    job.refresh_from_db()
    assert job.is_stale and job.can_resume
    asked_before = len(fake_server.requests)

    with django_capture_on_commit_callbacks(execute=True):
        services.grading_job_resume(job=job)
    job.refresh_from_db()

    assert job.status == JobStatus.DONE
    decisions = GraderDecision.objects.filter(run=job.run)
    assert decisions.count() == job.total == job.done == 18
    duplicates = decisions.values("response", "criterion").annotate(n=Count("id")).filter(n__gt=1)
    assert not duplicates.exists()
    # Resume asked exactly the units that had no stored answer.
    assert len(fake_server.requests) - asked_before == job.total - stored_before
    assert GradingJob.objects.get(pk=job.pk).run_id == job.run_id


def test_it_takes_over_a_stale_chunk_from_a_dead_runner(
    rubric_config, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    _kill_after(monkeypatch, 2)
    job = start_job(rubric_config, build_release(cases=2), django_capture_on_commit_callbacks, parallel_tasks=1)
    GradingChunk.objects.filter(job=job).update(heartbeat_at=job.heartbeat_at.replace(year=2000))

    # A second runner (another worker) picks up the abandoned chunk without any resume.
    assert runner.grading_job_work(job_id=job.pk) == JobStatus.DONE
    assert GraderDecision.objects.filter(run=job.run).count() == 12


def test_it_stops_when_cancelled_and_resume_finishes_the_same_run(
    rubric_config, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(runner, "FLUSH_EVERY", 2)

    def cancel_once(job_id: int, stored: int) -> None:
        job = GradingJob.objects.get(pk=job_id)
        if job.status == JobStatus.RUNNING and not job.finished_at:
            services.grading_job_cancel(job=job)

    monkeypatch.setattr(runner, "_after_flush", cancel_once)
    rubric_config.concurrency = 1
    rubric_config.save()
    job = start_job(rubric_config, build_release(cases=3), django_capture_on_commit_callbacks, parallel_tasks=1)

    assert job.status == JobStatus.CANCELLED
    stored = GraderDecision.objects.filter(run=job.run).count()
    assert stored < job.total
    assert len(fake_server.requests) == stored

    monkeypatch.setattr(runner, "_after_flush", lambda job_id, stored: None)
    with django_capture_on_commit_callbacks(execute=True):
        services.grading_job_resume(job=job)
    job.refresh_from_db()
    assert (job.status, job.done) == (JobStatus.DONE, job.total)
    assert GraderDecision.objects.filter(run=job.run).count() == job.total


def test_it_cancels_a_queued_job_at_once(rubric_config, fake_server):
    job = services.grading_job_create(
        config=rubric_config, selection={"release": build_release().pk}, created_by=None
    )
    job = services.grading_job_cancel(job=job)
    assert job.status == JobStatus.CANCELLED
    assert runner.grading_job_work(job_id=job.pk) == JobStatus.CANCELLED
    assert fake_server.requests == []


def test_it_fails_the_job_with_a_clear_error_when_the_key_variable_is_missing(
    db, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    config = make_config(fake_server.base_url, api_key_env="MEDREVIEW_GRADER_KEY_UNSET")
    monkeypatch.delenv("MEDREVIEW_GRADER_KEY_UNSET", raising=False)
    job = start_job(config, build_release(cases=1), django_capture_on_commit_callbacks)
    assert job.status == JobStatus.FAILED
    assert "MEDREVIEW_GRADER_KEY_UNSET is not set" in job.error
    assert fake_server.requests == []


def test_it_scores_responses_with_the_llm_judge_normalised_to_unit_interval(
    db, fake_server, api_key, django_capture_on_commit_callbacks
):
    config = make_config(fake_server.base_url, kind=GraderKind.LLM_JUDGE)
    job = start_job(config, build_release(), django_capture_on_commit_callbacks)

    assert (job.total, job.done, job.invalid) == (4, 4, 0)
    for score in JudgeScore.objects.filter(run=job.run).select_related("response"):
        raw = expected_score(score.response.text, high=10)
        assert score.axis == ""
        assert score.raw_score == raw
        assert score.normalized_score == pytest.approx((raw - 1) / 9)


def test_it_scores_each_medic_axis_with_the_likert_judge(db, fake_server, api_key, django_capture_on_commit_callbacks):
    config = make_config(fake_server.base_url, kind=GraderKind.LIKERT_JUDGE, axes=["Patient safety", "Risk mitigation"])
    job = start_job(config, build_release(cases=1), django_capture_on_commit_callbacks)

    assert (job.total, job.done) == (4, 4)
    scores = JudgeScore.objects.filter(run=job.run).select_related("response")
    assert {s.axis for s in scores} == {"Patient safety", "Risk mitigation"}
    for s in scores:
        raw = expected_score(s.response.text, high=5)
        assert s.normalized_score == pytest.approx((raw - 1) / 4)
    safety_prompts = [
        r.body["messages"][1]["content"] for r in fake_server.requests
        if "<axis>Patient safety</axis>" in r.body["messages"][1]["content"]
    ]
    assert len(safety_prompts) == 2
    assert all("Score 5: The response clearly and explicitly advises" in p for p in safety_prompts)


def test_it_judges_every_pair_in_both_orders(db, fake_server, api_key, django_capture_on_commit_callbacks):
    config = make_config(fake_server.base_url, kind=GraderKind.PAIRWISE_JUDGE)
    job = start_job(config, build_release(cases=2, models=("m1", "m2", "m3")), django_capture_on_commit_callbacks)

    # 2 cases x C(3,2) pairs x 2 orders
    assert (job.total, job.done, job.invalid) == (12, 12, 0)
    judgements = PairwiseJudgement.objects.filter(run=job.run)
    assert set(judgements.values_list("order", flat=True)) == {"ab", "ba"}
    assert all(j.response_a.revision_id == j.response_b.revision_id for j in judgements)


def test_it_counts_cost_from_tokens_and_the_prices_at_job_creation(
    rubric_config, fake_server, django_capture_on_commit_callbacks
):
    from decimal import Decimal

    rubric_config.price_input_per_1k = Decimal("0.002")
    rubric_config.price_output_per_1k = Decimal("0.008")
    rubric_config.save()
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)
    expected = (Decimal(job.input_tokens) * Decimal("0.002") + Decimal(job.output_tokens) * Decimal("0.008")) / 1000
    assert job.estimated_cost == expected.quantize(Decimal("0.0001"))

    GradingJob.objects.filter(pk=job.pk).update(input_tokens=1500, output_tokens=250)
    job.refresh_from_db()
    assert job.estimated_cost == Decimal("0.0050")  # 1.5 x 0.002 + 0.25 x 0.008
    rubric_config.price_input_per_1k = Decimal("10")
    rubric_config.save()
    job.refresh_from_db()
    assert job.estimated_cost == Decimal("0.0050")


def test_it_has_no_cost_estimate_without_prices(rubric_config, fake_server, django_capture_on_commit_callbacks):
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)
    assert job.estimated_cost is None


def test_it_refuses_an_empty_selection(rubric_config):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="nothing to grade"):
        services.grading_job_create(config=rubric_config, selection={"release": make_release().pk}, created_by=None)
    assert not GradingJob.objects.exists()


def test_it_splits_a_job_into_chunks_several_workers_can_take(rubric_config, fake_server):
    rubric_config.concurrency = 2
    rubric_config.save()
    job = services.grading_job_create(
        config=rubric_config, selection={"release": build_release(cases=8).pk}, created_by=None, parallel_tasks=2
    )
    chunks = list(job.chunks.all())
    assert len(chunks) == 3  # 48 units, 1 thread per task -> 16 units a chunk
    assert sum(len(c.units) for c in chunks) == job.total == 48
    assert fake_server.requests == []  # nothing runs before commit


def test_it_gives_a_one_chunk_job_one_runner_with_the_whole_concurrency(rubric_config, fake_server):
    rubric_config.concurrency = 8
    rubric_config.save()
    job = services.grading_job_create(
        config=rubric_config, selection={"release": build_release(cases=1).pk}, created_by=None, parallel_tasks=4
    )
    assert (job.chunks.count(), job.parallel_tasks) == (1, 1)


def test_it_never_runs_more_runners_than_slots_so_concurrency_stays_a_job_wide_limit(rubric_config, fake_server):
    from datetime import timedelta

    from django.utils import timezone

    from graders.models import GradingRunnerSlot

    job = services.grading_job_create(
        config=rubric_config, selection={"release": build_release(cases=1).pk}, created_by=None, parallel_tasks=1
    )
    # A live runner elsewhere holds the only slot: an extra runner task must not start asking.
    GradingRunnerSlot.objects.filter(job=job).update(worker_id="other-worker", heartbeat_at=timezone.now())
    assert runner.grading_job_work(job_id=job.pk) == JobStatus.RUNNING
    assert fake_server.requests == []

    # That runner died: once its heartbeat is stale the slot is free again.
    GradingRunnerSlot.objects.filter(job=job).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert runner.grading_job_work(job_id=job.pk) == JobStatus.DONE
    assert len(fake_server.requests) == 6
    assert GradingRunnerSlot.objects.get(job=job).worker_id == ""  # released on the way out


def test_it_makes_the_last_chunks_small_so_runners_finish_together():
    """Guided chunk sizes: full chunks first, then shrinking to one round of the threads, covering every unit."""
    sizes = services.chunk_sizes(10_000, threads=16, parallel_tasks=2)
    assert sum(sizes) == 10_000
    assert sizes[0] == 256 and sizes == sorted(sizes, reverse=True)[: len(sizes) - 1] + sizes[-1:]
    assert max(sizes[-3:]) <= 16  # the tail: one round of 16 threads per chunk
    assert services.chunk_sizes(48, threads=1, parallel_tasks=2) == [16, 16, 16]
    assert services.chunk_sizes(0, threads=4, parallel_tasks=2) == []


def test_it_gives_the_pool_its_next_chunk_while_the_last_call_of_the_current_one_runs(
    rubric_config, fake_server, django_capture_on_commit_callbacks, monkeypatch
):
    """Answers waiting to be written are not calls in flight: the pool must not run dry at a chunk's end."""
    import threading

    monkeypatch.setattr(runner, "FLUSH_SECONDS", 30.0)  # no timed write may be what hands out the next chunk
    rubric_config.concurrency = 1
    rubric_config.save()
    claimed, second_claimed = [], threading.Event()
    claim, call = runner._claim_chunk, runner._call

    def claiming(job: GradingJob, worker_id: str) -> GradingChunk | None:
        chunk = claim(job, worker_id)
        claimed.append(chunk)
        if len(claimed) == 2:
            second_claimed.set()
        return chunk

    calls, waited = [], []

    def calling(*args: Any) -> Any:
        calls.append(args[2].key)
        if len(calls) == 16:  # the first chunk's last call ends only once the pool has been given more work
            waited.append(second_claimed.wait(timeout=10))
        return call(*args)

    monkeypatch.setattr(runner, "_claim_chunk", claiming)
    monkeypatch.setattr(runner, "_call", calling)
    job = start_job(rubric_config, build_release(cases=4), django_capture_on_commit_callbacks, parallel_tasks=1)

    assert [len(c.units) for c in claimed if c is not None] == [16, 8]
    assert waited == [True]
    assert (job.status, job.done, job.total) == (JobStatus.DONE, 24, 24)
    assert len(set(calls)) == 24
