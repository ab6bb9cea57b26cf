#!/usr/bin/env python3
"""Grading throughput: 10,000 rubric decisions (1x) against a fake endpoint answering after 200 ms.

    .venv/bin/python benchmarks/grading_throughput.py [--decisions 10000] [--sizes 1,3,10] [--latency-ms 200]
        [--concurrency 32] [--workers 2] [--database-url postgres://...]

Uses its own PostgreSQL database (default medreview_grading_bench, created and migrated if needed),
starts the fake OpenAI-compatible endpoint (`python -m devtools.fake_openai`) and N worker processes
(`manage.py db_worker --queue-name grading`, TASKS_BACKEND=db), runs a small warm-up job (each worker's
first grading task imports the grading code; the workers' boot is not timed either), then starts one
grading job with `parallel_tasks = N` so the config's concurrency limit is shared: each runner task uses
concurrency / N threads and the workers claim the job's chunks from the database. Prints the wall time from job creation
to done and its ratio to the ideal decisions x latency / concurrency (62.5 s for the defaults; target
<= 1.05x), at each of --sizes multiples of --decisions (the same workers and endpoint for every size),
then the growth table: wall time, the workers' peak memory and the log-log slope (`growth.py`).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/medreview_grading_bench"
CRITERIA_PER_CASE = 10


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def build_data(decisions: int) -> int:
    """Cases with 10 criteria and one response each; returns the release id."""
    from cases.models import Case, CaseRevision, Dataset, ModelResponse, Release, RubricCriterion

    stamp = time.strftime("%Y%m%d-%H%M%S")
    dataset, _ = Dataset.objects.get_or_create(name="Grading benchmark")
    release = Release.objects.create(
        dataset=dataset, label=f"bench-{stamp}", format="livemedbench", file_name="benchmark", sha256=stamp.ljust(64, "0")
    )
    n_cases = -(-decisions // CRITERIA_PER_CASE)
    cases = Case.objects.bulk_create(Case(dataset=dataset, external_id=f"{stamp}-{i}") for i in range(n_cases))
    revisions = CaseRevision.objects.bulk_create(
        CaseRevision(
            case=case, number=1, release=release, content_hash=f"{stamp}-{i}", language="en",
            narrative=f"Patient {i}: 45-year-old with three days of fever and a dry cough.",
            core_request="Do I need antibiotics?", doctor_advice="Likely viral; rest, fluids, return if breathless.",
        )
        for i, case in enumerate(cases)
    )
    for case, revision in zip(cases, revisions, strict=True):
        case.current_revision = revision
    Case.objects.bulk_update(cases, ["current_revision"], batch_size=1000)
    criteria = []
    for i, revision in enumerate(revisions):
        left = min(CRITERIA_PER_CASE, decisions - i * CRITERIA_PER_CASE)
        criteria += [
            RubricCriterion(revision=revision, order=j + 1, text=f"Case {i} criterion {j}: mentions item {j}",
                            points=(j % 10) + 1 if j % 4 else -5, axis="Accuracy")
            for j in range(left)
        ]
    RubricCriterion.objects.bulk_create(criteria, batch_size=2000)
    ModelResponse.objects.bulk_create(
        ModelResponse(revision=r, model_name="bench-model", text=f"Rest and fluids for patient {i}.", release=release)
        for i, r in enumerate(revisions)
    )
    return release.pk


def _grade(args: argparse.Namespace, release_id: int, workers: list) -> tuple[object, float]:
    """Start one grading job of the release's decisions and wait for it: (job, wall seconds)."""
    from graders import services
    from graders.models import GraderConfig, JobStatus

    template = services.prompt_template_default(kind="rubric-grader")
    config, _ = GraderConfig.objects.update_or_create(
        name="Benchmark rubric grader (fake server)",
        defaults={
            "kind": "rubric-grader", "base_url": f"http://127.0.0.1:{args.port}/v1", "model": "fake-grader-1",
            "concurrency": args.concurrency, "timeout_seconds": 30, "max_attempts": 3,
            "backoff_base_seconds": 0.2, "api_key_env": "MEDREVIEW_GRADER_KEY_BENCH", "prompt": template,
        },
    )
    started = time.monotonic()
    job = services.grading_job_create(
        config=config, selection={"release": release_id}, created_by=None, parallel_tasks=args.workers
    )
    while True:
        job.refresh_from_db()
        if job.status in (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED):
            break
        if any(w.poll() is not None for w in workers):
            raise SystemExit("a worker exited early")
        time.sleep(0.05)
    return job, time.monotonic() - started


def _warm_up(args: argparse.Namespace, workers: list) -> None:
    """A small job first: each worker's first grading task imports the grading code (openai among it,
    about 0.5 s), a cost paid once per worker process like its boot, which is not measured either."""
    from django_tasks_db.models import DBTaskResult

    decisions = 2 * args.concurrency
    job, wall = _grade(args, build_data(decisions), workers)
    ran = {w for ids in DBTaskResult.objects.filter(
        task_path__endswith="grading_job_run", args_kwargs__args__0=job.pk).values_list("worker_ids", flat=True)
        for w in ids}
    print(f"warm-up job {job.pk}: {decisions} decisions in {wall:.1f} s, status {job.status}; "
          f"{len(ran)} of {len(workers)} workers ran one of its tasks")


def _run_job(args: argparse.Namespace, decisions: int, workers: list, growth: object, size: float) -> None:
    from growth import peak_rss_mb, reset_peak_rss

    from graders.models import GradingChunk, GradingJob

    t = time.monotonic()
    release_id = build_data(decisions)
    print(f"\n=== {size:g}x: {decisions} criterion decisions built in {time.monotonic() - t:.1f}s; load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for w in workers:
        reset_peak_rss(w.pid)
    job, wall = _grade(args, release_id, workers)
    peak = max(peak_rss_mb(w.pid) for w in workers)
    ideal = decisions * args.latency_ms / 1000 / args.concurrency
    chunks = GradingChunk.objects.filter(job=job)
    runners = chunks.values("claimed_by").distinct().count()
    job = GradingJob.objects.get(pk=job.pk)
    print(f"job {job.pk}: status {job.status}, {job.done}/{job.total} stored, {job.invalid} invalid, "
          f"{job.failed} failed, {job.retries} retries, {chunks.count()} chunks taken by {runners} runner tasks")
    print(f"wall time: {wall:.1f} s for {job.total} decisions at concurrency {args.concurrency} "
          f"with {args.workers} workers ({job.total / wall:.0f} decisions/s); workers' peak {peak:,.0f} MB")
    print(f"ideal: {decisions} x {args.latency_ms / 1000} s / {args.concurrency} = {ideal:.1f} s; "
          f"RATIO {wall / ideal:.3f}x (target <= 1.05x: {'meets' if wall / ideal <= 1.05 else 'MISSES'})")
    growth.add("grading job, wall time", size, wall, peak)
    growth.add("overhead over the ideal time", size, max(wall - ideal, 1e-3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=10_000, help="decisions at 1x")
    parser.add_argument("--sizes", default="1,3,10", help="multiples of --decisions (default 1,3,10)")
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from growth import Growth, parse_sizes

    sizes = parse_sizes(args.sizes)

    env = {
        **os.environ, "DATABASE_URL": args.database_url, "TASKS_BACKEND": "db",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "grading-benchmark-only"), "DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "medreview.settings", "MEDREVIEW_GRADER_KEY_BENCH": "bench-any-key",
        # The fake endpoint runs on this machine; production allows no grader host unless named.
        "GRADER_ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    ensure_database(args.database_url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    python = sys.executable
    server = subprocess.Popen(
        [python, "-m", "devtools.fake_openai", "--port", str(args.port), "--latency-ms", str(args.latency_ms)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
    )
    # Closed (and deleted) when the benchmark exits.
    logs = [tempfile.NamedTemporaryFile("w+", suffix=f"-worker{i}.log") for i in range(args.workers)]  # noqa: SIM115
    workers = [
        subprocess.Popen(
            [python, "manage.py", "db_worker", "--queue-name", "grading", "--interval", "0.1", "--no-startup-delay",
             "--worker-id", f"bench-worker-{i}"],
            cwd=ROOT, env={**env, "LOG_LEVEL": "INFO"}, stdout=log, stderr=subprocess.STDOUT,
        )
        for i, log in enumerate(logs)
    ]
    growth = Growth("Grading throughput by multiple of 10,000 decisions")
    try:
        # Booting Django in the workers is not part of the measured time: wait until each one polls.
        deadline = time.monotonic() + 120
        while not all("Starting worker" in Path(log.name).read_text() for log in logs):
            if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                raise SystemExit("the workers did not start:\n" + "".join(Path(log.name).read_text() for log in logs))
            time.sleep(0.2)
        time.sleep(0.5)
        _warm_up(args, workers)
        for size in sizes:
            _run_job(args, round(args.decisions * size), workers, growth, size)
    finally:
        for proc in (*workers, server):
            proc.terminate()
        for proc in (*workers, server):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    growth.print()


if __name__ == "__main__":
    main()
