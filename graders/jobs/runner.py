"""How a grading job runs: durable with any number of workers sharing one PostgreSQL.

- Each runner (`grading_job_work`, started by the task in `graders/tasks.py`) claims one chunk at a time
  (select_for_update(skip_locked=True)), computes its pending units = chunk units minus stored answers,
  asks the endpoint with a thread pool of concurrency / parallel_tasks threads OUTSIDE any transaction,
  and stores answers in small batches with bulk_create(ignore_conflicts=True): the unique constraints make
  a duplicate impossible even if two runners race on a taken-over chunk. Counters move with F()
  expressions and are reconciled with the stored rows when the job ends.
- A runner killed mid-chunk stops writing its heartbeat; its chunk is taken over by another runner or
  by a resume (`graders.services.grading_job_resume`), and only the units without a stored answer are
  asked again.
"""

import logging
import queue
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from cases.models import ModelResponse, RubricCriterion
from graders.endpoints import client as grader_client
from graders.endpoints.policy import endpoint_problem, key_variable_problem
from graders.jobs.units import UnitKey, as_key, stored_units
from graders.kinds import prompts, question_set_judge
from graders.models import (
    STALE_AFTER,
    GraderConfig,
    GraderDecision,
    GraderKind,
    GradingChunk,
    GradingJob,
    GradingRunnerSlot,
    JobStatus,
    JudgeScore,
    PairwiseJudgement,
    PairwiseVerdict,
    QuestionSetJudgement,
    Verdict,
)

logger = logging.getLogger(__name__)

FLUSH_EVERY = 32  # answers per write: small enough that a killed worker loses little, big enough to be cheap
FLUSH_SECONDS = 1.0  # ... or this long since the last write (also the heartbeat and cancel-check period)

def answer_models(kind: str) -> list[type]:
    if kind == GraderKind.QUESTION_SET_JUDGE:
        return [QuestionSetJudgement]
    if kind == GraderKind.RUBRIC_GRADER:
        return [GraderDecision]
    if kind == GraderKind.PAIRWISE_JUDGE:
        return [PairwiseJudgement]
    return [JudgeScore]


def reconcile(job: GradingJob) -> None:
    """Set done / invalid / failed from the stored rows (the F() increments can overcount a race)."""
    (model,) = answer_models(job.run.kind)
    status_field = "status" if model is JudgeScore else "verdict"
    rows = model.objects.filter(run=job.run)
    job.done = rows.count()
    job.invalid = rows.filter(**{status_field: Verdict.INVALID}).count()
    job.failed = rows.filter(**{status_field: Verdict.FAILED}).count()


# ------------------------------------------------------------------------------------------ execution


def _after_flush(job_id: int, stored: int) -> None:
    """Called after every batch is stored; tests replace it to simulate a worker killed mid-job."""


@dataclass
class _Ask:
    key: UnitKey
    messages: list[dict[str, str]]
    criterion: str = ""
    mcq_ids: list[int] = field(default_factory=list)  # question-set judge: the set's MCQs in order


class _Structured:
    """Whether to send response_format; shared by the threads of one runner."""

    def __init__(self, use: bool) -> None:
        self.use = use
        self.rejected = False


def _endpoint(snapshot: dict[str, Any]) -> grader_client.Endpoint:
    return grader_client.Endpoint(
        base_url=snapshot["base_url"], model=snapshot["model"], api_key_env=snapshot["api_key_env"],
        temperature=snapshot["temperature"], max_tokens=snapshot["max_tokens"],
        timeout_seconds=snapshot["timeout_seconds"], max_attempts=snapshot["max_attempts"],
        backoff_base_seconds=snapshot["backoff_base_seconds"],
    )


def _query_text(revision: Any) -> str:
    if revision.conversation:
        return "\n\n".join(f"{t.get('role', 'user')}: {t.get('content', '')}" for t in revision.conversation)
    return "\n\n".join(part for part in (revision.narrative, revision.core_request) if part)


def _build_asks(kind: str, template: str, keys: list[UnitKey]) -> list[_Ask]:
    """Render the prompt of every unit; two queries whatever the number of units."""
    if kind == GraderKind.QUESTION_SET_JUDGE:
        return [_Ask(key=k, messages=m, mcq_ids=ids) for k, m, ids in question_set_judge.build_messages(template, keys)]
    response_ids = {k[0] for k in keys} | ({k[1] for k in keys} if kind == GraderKind.PAIRWISE_JUDGE else set())
    responses = ModelResponse.objects.select_related("revision").in_bulk(response_ids)
    criteria = (
        RubricCriterion.objects.in_bulk({k[1] for k in keys}) if kind == GraderKind.RUBRIC_GRADER else {}
    )
    asks = []
    for key in keys:
        first = responses[key[0]]
        revision = first.revision
        values: dict[str, Any] = {
            "query": _query_text(revision), "narrative": revision.narrative, "reference": revision.doctor_advice,
        }
        criterion_text = ""
        if kind == GraderKind.RUBRIC_GRADER:
            criterion = criteria[key[1]]
            criterion_text = criterion.text
            values.update(response=first.text, criterion=criterion.text, points=criterion.points, axis=criterion.axis)
        elif kind == GraderKind.PAIRWISE_JUDGE:
            a, b = first.text, responses[key[1]].text
            shown = (a, b) if key[2] == "ab" else (b, a)
            values.update(response_a=shown[0], response_b=shown[1])
        else:
            values.update(response=first.text, axis=key[1], axis_rubric=prompts.axis_rubric(key[1]))
        asks.append(_Ask(key=key, messages=prompts.render(template, values), criterion=criterion_text))
    return asks


def _call(
    client: Any, endpoint: grader_client.Endpoint, ask: _Ask, structured: _Structured, kind: str
) -> grader_client.CallResult:
    """Runs in a pool thread: network only, no database."""
    response_format = prompts.json_schema(kind) if structured.use else None
    result = grader_client.complete(client, endpoint, ask.messages, response_format=response_format)
    if result.structured_rejected:
        structured.use = False
        structured.rejected = True
    return result


def _row(kind: str, run_id: int, ask: _Ask, result: grader_client.CallResult) -> tuple[Any, str]:
    """The row to store for one answer, and its status (met / not_met / invalid / failed / A / B / tie)."""
    common = {
        "run_id": run_id, "raw_output": result.text, "latency_ms": result.latency_ms,
        "input_tokens": result.input_tokens, "output_tokens": result.output_tokens,
        "attempts": max(1, result.attempts),
    }
    if kind == GraderKind.QUESTION_SET_JUDGE:
        return question_set_judge.judgement_row(ask.key, ask.mcq_ids, result.text, result.ok, result.error, common)
    key = ask.key
    if not result.ok:
        status = Verdict.FAILED
        parsed = prompts.Parsed(verdict=status, error=result.error)
    elif kind == GraderKind.RUBRIC_GRADER:
        parsed = prompts.parse_rubric(result.text, criterion=ask.criterion)
    elif kind == GraderKind.PAIRWISE_JUDGE:
        parsed = prompts.parse_pairwise(result.text)
    else:
        parsed = prompts.parse_score(result.text, kind=kind)
    common.update(reasoning=parsed.reasoning, error=parsed.error)
    if kind == GraderKind.RUBRIC_GRADER:
        return GraderDecision(response_id=key[0], criterion_id=key[1], verdict=parsed.verdict, **common), parsed.verdict
    if kind == GraderKind.PAIRWISE_JUDGE:
        verdict = parsed.verdict
        if key[2] == "ba" and verdict in (PairwiseVerdict.A, PairwiseVerdict.B):
            # The prompt showed response_b first; store the verdict in terms of response_a / response_b.
            verdict = PairwiseVerdict.B if verdict == PairwiseVerdict.A else PairwiseVerdict.A
        return PairwiseJudgement(
            response_a_id=key[0], response_b_id=key[1], order=key[2], verdict=verdict, **common
        ), verdict
    return JudgeScore(
        response_id=key[0], axis=key[1], status=parsed.verdict, raw_score=parsed.raw_score,
        normalized_score=parsed.normalized_score, **common,
    ), parsed.verdict


def _flush(
    job: GradingJob,
    slot: GradingRunnerSlot,
    chunks: list[GradingChunk],
    batch: list[tuple[_Ask, grader_client.CallResult]],
    structured: _Structured,
) -> str:
    """Store a batch of answers, move the counters, beat the heart; returns the job's status."""
    kind = job.run.kind
    rows, statuses = [], []
    for ask, result in batch:
        row, status = _row(kind, job.run_id, ask, result)
        rows.append(row)
        statuses.append(status)
    now = timezone.now()
    # One transaction: answers and the counters that describe them are stored together. No row lock: the
    # unique constraints reject duplicates (ignore_conflicts) and F() increments cannot lose updates.
    with transaction.atomic():
        if rows:
            type(rows[0]).objects.bulk_create(rows, ignore_conflicts=True)
        GradingJob.objects.filter(pk=job.pk).update(
            done=F("done") + len(rows),
            invalid=F("invalid") + statuses.count(Verdict.INVALID),
            failed=F("failed") + statuses.count(Verdict.FAILED),
            retries=F("retries") + sum(r.retries for _, r in batch),
            input_tokens=F("input_tokens") + sum(r.input_tokens or 0 for _, r in batch),
            output_tokens=F("output_tokens") + sum(r.output_tokens or 0 for _, r in batch),
            heartbeat_at=now,
        )
        GradingChunk.objects.filter(pk__in=[c.pk for c in chunks]).update(heartbeat_at=now)
        GradingRunnerSlot.objects.filter(pk=slot.pk, worker_id=slot.worker_id).update(heartbeat_at=now)
        if structured.rejected:
            GraderConfig.objects.filter(pk=job.config_id).update(structured_output_rejected=True)
            structured.rejected = False
    return GradingJob.objects.filter(pk=job.pk).values_list("status", flat=True).get()


def _claim_chunk(job: GradingJob, worker_id: str) -> GradingChunk | None:
    now = timezone.now()
    # Locks one claimable chunk; skip_locked lets concurrent runners take the next one instead of waiting.
    with transaction.atomic():
        chunk = (
            GradingChunk.objects.select_for_update(skip_locked=True)
            .filter(job_id=job.pk)
            .filter(
                Q(status=GradingChunk.Status.PENDING)
                | Q(status=GradingChunk.Status.RUNNING, heartbeat_at__lt=now - STALE_AFTER)
            )
            .order_by("index")
            .first()
        )
        if chunk is None:
            return None
        chunk.status = GradingChunk.Status.RUNNING
        chunk.claimed_by = worker_id
        chunk.claims += 1
        chunk.heartbeat_at = now
        chunk.save(update_fields=["status", "claimed_by", "claims", "heartbeat_at"])
    return chunk


def _claim_slot(job: GradingJob, worker_id: str) -> GradingRunnerSlot | None:
    now = timezone.now()
    # Older jobs, or a job whose slots were never made, get them here; the unique index keeps one per index.
    GradingRunnerSlot.objects.bulk_create(
        (GradingRunnerSlot(job=job, index=i) for i in range(job.parallel_tasks)), ignore_conflicts=True
    )
    # Locks one free slot (never held, released, or its holder stopped beating) so two runners cannot share it.
    with transaction.atomic():
        slot = (
            GradingRunnerSlot.objects.select_for_update(skip_locked=True)
            .filter(job_id=job.pk)
            .filter(Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=now - STALE_AFTER))
            .order_by("index")
            .first()
        )
        if slot is None:
            return None
        slot.worker_id = worker_id
        slot.heartbeat_at = now
        slot.save(update_fields=["worker_id", "heartbeat_at"])
    return slot


def _release_chunk(chunk: GradingChunk, *, done: bool) -> None:
    status = GradingChunk.Status.DONE if done else GradingChunk.Status.PENDING
    GradingChunk.objects.filter(pk=chunk.pk).update(status=status, heartbeat_at=timezone.now() if done else None)


class _Runner:
    """One runner's pipeline: a thread pool kept busy across chunk boundaries.

    The next chunk is claimed while the current one's last requests are still in flight, so the pool never
    drains at a chunk's end. Finished calls arrive on a queue (cheaper than waiting on every future);
    the main thread alone touches the database.
    """

    def __init__(
        self, job: GradingJob, *, slot: GradingRunnerSlot, client: Any, endpoint: grader_client.Endpoint,
        threads: int, structured: _Structured,
    ) -> None:
        self.job, self.slot, self.worker_id = job, slot, slot.worker_id
        self.client, self.endpoint = client, endpoint
        self.threads, self.structured = threads, structured
        self.kind = job.run.kind
        self.done_queue: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self.futures: dict[Future, tuple[_Ask, int]] = {}
        self.open_chunks: dict[int, tuple[GradingChunk, int]] = {}  # chunk id -> (chunk, answers not yet stored)
        self.exhausted = False
        self.stored = 0

    def _top_up(self, pool: ThreadPoolExecutor, finished: int) -> None:
        # Keep at least one more round queued behind the running calls. Answers received but not yet
        # stored (`finished`) are not calls: counting them as such left the pool with nothing queued
        # at a chunk's end until the next write, each thread idle for up to a whole call.
        while not self.exhausted and len(self.futures) - finished < 2 * self.threads:
            chunk = _claim_chunk(self.job, self.worker_id)
            if chunk is None:
                self.exhausted = True
                return
            keys = [as_key(u) for u in chunk.units]
            stored = stored_units(self.kind, self.job.run, among=keys)
            pending = [k for k in keys if k not in stored]
            if not pending:
                _release_chunk(chunk, done=True)
                continue
            self.open_chunks[chunk.pk] = (chunk, len(pending))
            for ask in _build_asks(self.kind, self.job.prompt.text, pending):
                future = pool.submit(_call, self.client, self.endpoint, ask, self.structured, self.kind)
                self.futures[future] = (ask, chunk.pk)
                future.add_done_callback(self.done_queue.put)

    def _store(self, finished: list[Future]) -> str:
        batch = []
        for future in finished:
            ask, chunk_id = self.futures.pop(future)
            batch.append((ask, future.result()))
            chunk, left = self.open_chunks[chunk_id]
            self.open_chunks[chunk_id] = (chunk, left - 1)
        status = _flush(self.job, self.slot, [c for c, _ in self.open_chunks.values()], batch, self.structured)
        for chunk_id, (chunk, left) in list(self.open_chunks.items()):
            if left == 0:
                _release_chunk(chunk, done=True)
                del self.open_chunks[chunk_id]
        self.stored += len(batch)
        _after_flush(self.job.pk, self.stored)
        return status

    def _drain(self, timeout: float) -> list[Future]:
        finished = []
        try:
            finished.append(self.done_queue.get(timeout=timeout))
            while len(finished) < FLUSH_EVERY:
                finished.append(self.done_queue.get_nowait())
        except queue.Empty:
            pass
        return finished

    def run(self) -> str:
        status: str = JobStatus.RUNNING
        pending: list[Future] = []
        last_flush = time.monotonic()
        pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix=f"grader-{self.job.pk}")
        try:
            while True:
                self._top_up(pool, len(pending))
                if not self.futures and not pending:
                    break
                pending += self._drain(FLUSH_SECONDS)
                if (
                    len(pending) >= FLUSH_EVERY
                    or time.monotonic() - last_flush >= FLUSH_SECONDS
                    or len(pending) == len(self.futures)
                ):
                    status = self._store(pending)
                    pending = []
                    last_flush = time.monotonic()
                    if status != JobStatus.RUNNING:
                        break
            if status != JobStatus.RUNNING:
                # Cancelled: drop what has not started; answers already paid for are still stored.
                for future in self.futures:
                    future.cancel()
                running = [f for f in self.futures if not f.cancelled()]
                wait(running)
                for future in [f for f in self.futures if f.cancelled()]:
                    del self.futures[future]
                if running:
                    self._store(running)
                for chunk, _ in self.open_chunks.values():
                    _release_chunk(chunk, done=False)
        finally:
            # On an error nothing more is asked; the chunks stay claimed until their heartbeat goes stale.
            pool.shutdown(wait=True, cancel_futures=True)
        return status


def _settle_cancel(job_id: int) -> None:
    """The last runner out turns a cancelling job into a cancelled one."""
    now = timezone.now()
    live = GradingChunk.objects.filter(
        job_id=job_id, status=GradingChunk.Status.RUNNING, heartbeat_at__gte=now - STALE_AFTER
    )
    if not live.exists():
        GradingJob.objects.filter(pk=job_id, status=JobStatus.CANCELLING).update(
            status=JobStatus.CANCELLED, finished_at=now
        )


def _finish(job_id: int) -> None:
    # Locks the job row: of several runners finding no more chunks, exactly one marks the job done.
    with transaction.atomic():
        job = GradingJob.objects.select_for_update().select_related("run").get(pk=job_id)
        if job.status != JobStatus.RUNNING:
            return
        if job.chunks.exclude(status=GradingChunk.Status.DONE).exists():
            return  # another runner is still on a chunk; it will finish the job
        reconcile(job)
        job.status = JobStatus.DONE
        job.finished_at = timezone.now()
        job.heartbeat_at = job.finished_at
        job.save(update_fields=["done", "invalid", "failed", "status", "finished_at", "heartbeat_at"])


def _fail(job_id: int, error: str) -> None:
    GradingJob.objects.filter(pk=job_id, status__in=GradingJob.ACTIVE_STATES).update(
        status=JobStatus.FAILED, error=error[:5000], finished_at=timezone.now()
    )


def grading_job_work(
    *, job_id: int, worker_id: str | None = None, make_client: Callable[..., Any] = grader_client.make_client
) -> str:
    """One runner: claim chunks of the job until none is left, the job is cancelled, or it fails.

    Safe to run any number of times concurrently; returns the job status it saw last.
    """
    worker_id = worker_id or uuid.uuid4().hex[:16]
    now = timezone.now()
    GradingJob.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=Coalesce(F("started_at"), now), heartbeat_at=now
    )
    job = GradingJob.objects.select_related("config", "run", "prompt").get(pk=job_id)
    if job.status == JobStatus.CANCELLING:
        _settle_cancel(job_id)
        return JobStatus.CANCELLED
    if job.status != JobStatus.RUNNING:
        return job.status
    endpoint = _endpoint(job.snapshot)
    refusal = endpoint_problem(endpoint.base_url) or key_variable_problem(endpoint.api_key_env)
    if refusal:  # a row saved before the policy, or settings tightened since: nothing is sent
        _fail(job_id, refusal)
        return JobStatus.FAILED
    try:
        client = make_client(endpoint)
    except grader_client.MissingApiKey as exc:
        _fail(job_id, str(exc))
        return JobStatus.FAILED
    threads = max(1, job.snapshot.get("concurrency", job.config.concurrency) // job.parallel_tasks)
    structured = _Structured(job.snapshot.get("structured_output", True) and not job.config.structured_output_rejected)
    slot = _claim_slot(job, worker_id)
    if slot is None:
        # The job already has parallel_tasks live runners (e.g. an extra task queued by a resume).
        logger.info("Runner %s: grading job %s has all its runner slots taken", worker_id, job_id)
        return job.status
    logger.info("Runner %s on grading job %s with %d threads", worker_id, job_id, threads)
    try:
        runner = _Runner(job, slot=slot, client=client, endpoint=endpoint, threads=threads, structured=structured)
        if runner.run() == JobStatus.RUNNING:
            _finish(job_id)
        else:
            _settle_cancel(job_id)
    finally:
        GradingRunnerSlot.objects.filter(pk=slot.pk, worker_id=worker_id).update(heartbeat_at=None, worker_id="")
    return GradingJob.objects.filter(pk=job_id).values_list("status", flat=True).get()
