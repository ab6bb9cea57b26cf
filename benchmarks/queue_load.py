#!/usr/bin/env python3
"""Review queue under load: gunicorn (4 workers) on PostgreSQL, simulated physicians via the API.

    .venv/bin/python benchmarks/queue_load.py [--seconds 60] [--physicians 50,100,200] [--workers 4]
        [--threads 1] [--think 1.0] [--items 3000] [--database-url postgres://...] [--port 8791]
        [--app-root DIR]

Recreates its own database (default medreview_queue_bench), migrates it, seeds cases with rubric
criteria, a running study (narrative-quality + criterion-validity, 2 raters per item, so 5 fields
per item) and N physician users with API tokens. Starts gunicorn, then N threads each loop
next -> save draft -> submit through /api/review/ with token auth, optionally pausing `--think`
seconds (uniform 0.5x-1.5x) between calls like a person reading (and starting at a random moment
within the first 2 x think seconds), for `--seconds`.

Each size of --physicians (a comma-separated list; 50, 100 and 200 by default) runs against the
same server with a study of its own over the same cases. Prints per size p50 / p95 / p99 latency
of each call, throughput, the server's CPU per request (gunicorn's workers, and PostgreSQL's processes
on this machine), its workers' peak memory, and at the
end how each grows with the number of physicians: the log-log slope (0: flat, 1: proportional).
--app-root serves another checkout of medreview (its manage.py, gunicorn from its directory) with
this script, so a figure before a change is taken by the same benchmark.

Per size, the two correctness counts, both of which must be 0:
- double assignments: items with more slot-holding assignments than raters_per_item, or one
  rater handed the same item in two different assignments;
- lost claims: a claim the server handed out that is not in the database as that rater's
  assignment on that item, or a claim whose submission the server then refused.
Targets on a quiet 2-core machine (issue 26): server CPU at most 8 ms a request and next p95 under
50 ms at 50 physicians; next p95 under 150 ms with 0 errors at 200.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if "--app-root" in sys.argv:  # the checkout whose code the server and the seeding run
    ROOT = Path(sys.argv[sys.argv.index("--app-root") + 1]).resolve()
sys.path.insert(0, str(ROOT))

from growth import child_pids, largest_peak_rss_mb, slope_text  # noqa: E402  (this script's own folder)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_queue_bench"
STUDY_NAME = "Queue load benchmark"


def _recreate_database(url: str) -> None:
    import psycopg
    from dj_database_url import parse

    cfg = parse(url)
    with psycopg.connect(
        host=cfg["HOST"] or "127.0.0.1", port=cfg["PORT"] or 5432, user=cfg["USER"] or "postgres",
        password=cfg["PASSWORD"] or None, dbname="postgres", autocommit=True,
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{cfg["NAME"]}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{cfg["NAME"]}"')


def _django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "queue-benchmark-key")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "medreview.settings")
    import django

    django.setup()


def _seed(n_items: int, n_physicians: int) -> tuple[Any, dict[str, str]]:
    """Bulk-insert cases, users and tokens. Returns (admin, tokens by username)."""
    import hashlib

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from knox.models import AuthToken

    from accounts.models import Profile, Role
    from cases.models import Case, CaseRevision, Dataset, Release, RubricCriterion

    dataset = Dataset.objects.create(name="QueueBench")
    release = Release.objects.create(dataset=dataset, label="bench", format="livemedbench", file_name="bench.json",
                                     sha256="0" * 64)
    cases = Case.objects.bulk_create(Case(dataset=dataset, external_id=f"c{i}") for i in range(n_items))
    revisions = CaseRevision.objects.bulk_create(
        CaseRevision(case=c, number=1, release=release, language="en",
                     content_hash=hashlib.sha256(c.external_id.encode()).hexdigest(),
                     narrative=f"Patient {c.external_id}: 3 days of fever and a dry cough. " * 8,
                     core_request="Do I need antibiotics?", doctor_advice="Likely viral; rest and fluids.")
        for c in cases
    )
    for c, r in zip(cases, revisions, strict=True):
        c.current_revision = r
    Case.objects.bulk_update(cases, ["current_revision"], batch_size=1000)
    RubricCriterion.objects.bulk_create(
        (RubricCriterion(revision=r, order=k, text=f"Criterion {k} for {r.case_id}", points=5 - 3 * k, axis="Accuracy")
         for r in revisions for k in range(1, 5)),
        batch_size=2000,
    )
    User = get_user_model()
    password = make_password("bench-pass-2026")
    admin = User.objects.create(username="bench-admin", password=password, is_superuser=True, is_staff=True)
    Profile.objects.create(user=admin, role=Role.ADMIN, pseudonym="Bench-Admin")
    physicians = User.objects.bulk_create(User(username=f"doc{i:02d}", password=password) for i in range(n_physicians))
    Profile.objects.bulk_create(
        Profile(user=u, role=Role.PHYSICIAN, specialties=["Internal Medicine"], languages=["en"],
                pseudonym=f"Bench-{u.username}")
        for u in physicians
    )
    # (row, key) pairs: only hashes are stored, so the keys are kept from creation.
    tokens = {u.username: AuthToken.objects.create(user=u)[1] for u in physicians}
    return admin, tokens


def _study(admin: Any, usernames: list[str], name: str) -> int:
    """A running study over every benchmark case with these physicians as raters (through the services)."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from annotation.models import StudyMember
    from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start

    physicians = list(get_user_model().objects.filter(username__in=usernames))
    study = study_create(name=name, created_by=admin, task_slugs=["narrative-quality", "criterion-validity"],
                         selection=ItemSelection(kind="case", dataset="QueueBench"), raters_per_item=2, seed=1)
    study_add_members(study=study, users=physicians, role=StudyMember.Role.RATER, actor=admin)
    study_start(study=study, actor=admin)
    # A live database has planner statistics (autovacuum); a freshly bulk-loaded one does not yet.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return study.pk


class Physician(threading.Thread):
    def __init__(self, name: str, token: str, port: int, study: int, until: float, think: float, seed: int):
        super().__init__(daemon=True)
        self.username, self.token, self.port, self.study = name, token, port, study
        self.until, self.think = until, think
        self.rng = random.Random(seed)
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.claims: list[tuple[int, int]] = []  # (assignment, item) as handed out by the server
        self.refused: list[tuple[int, int, str]] = []  # submissions the server refused
        self.errors: list[str] = []
        self.submitted = 0
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def _call(self, kind: str, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Token {self.token}", "Content-Type": "application/json",
                   "Accept": "application/json"}
        payload = json.dumps(body).encode() if body is not None else b""
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        self.latency[kind].append((time.perf_counter() - started) * 1000)
        return response.status, json.loads(data) if data else None

    def _pause(self) -> None:
        if self.think:
            time.sleep(self.think * self.rng.uniform(0.5, 1.5))

    def run(self) -> None:
        # Physicians do not all press "next" in the same millisecond: stagger the first call.
        if self.think:
            time.sleep(self.rng.uniform(0, 2 * self.think))
        try:
            while time.monotonic() < self.until:
                status, body = self._call("next", "POST", f"/api/review/studies/{self.study}/next/")
                if status != 200:
                    self.errors.append(f"next {status}: {body}")
                    return
                if body["assignment"] is None:
                    return
                a_id, item_id = body["assignment"]["id"], body["assignment"]["item"]
                self.claims.append((a_id, item_id))
                labels = {}
                for f in body["fields"]:
                    values = [c["value"] for c in f["categories"]]
                    value = values[0] if self.rng.random() < 0.8 else self.rng.choice(values)
                    labels[f["id"]] = {"label": value, "comment": "" if value == values[0] else "benchmark note"}
                self._pause()
                first = dict(list(labels.items())[:2])
                status, body = self._call("save", "PUT", f"/api/review/assignments/{a_id}/draft/",
                                          {"draft": first, "seconds_spent": 20})
                if status != 200:
                    self.errors.append(f"save {status}: {body}")
                self._pause()
                status, body = self._call("submit", "POST", f"/api/review/assignments/{a_id}/submit/",
                                          {"labels": labels, "seconds_spent": 45})
                if status == 200:
                    self.submitted += 1
                else:
                    self.refused.append((a_id, item_id, f"{status}: {body}"))
        except Exception as exc:  # noqa: BLE001 - a crashed simulated physician is reported, not hidden
            self.errors.append(repr(exc))
        finally:
            self.conn.close()


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes, from /proc (Linux)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _database_pids() -> list[int]:
    """The PostgreSQL server's processes on this machine (its backends do the queries' work)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if "(postgres)" in stat.read_text():
                pids.append(int(stat.parent.name))
        except OSError:
            continue
    return pids


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    if not values:
        return (float("nan"),) * 3
    q = statistics.quantiles(values, n=100, method="inclusive")
    return q[49], q[94], q[98]


def _check(study_id: int, physicians: list[Physician]) -> tuple[int, int, list[str]]:
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.utils import timezone

    from annotation.models import Assignment, Item, Study

    study = Study.objects.get(pk=study_id)
    now = timezone.now()
    notes: list[str] = []
    over = (
        Assignment.objects.holding_slot(now=now).filter(item__study=study).values("item")
        .annotate(n=Count("pk")).filter(n__gt=study.raters_per_item).count()
    )
    finished_over = (
        Assignment.objects.filter(item__study=study, state__in=("submitted", "revised")).values("item")
        .annotate(n=Count("pk")).filter(n__gt=study.raters_per_item).count()
    )
    same_rater_twice = 0
    for p in physicians:
        rows: dict[int, set[int]] = defaultdict(set)
        for a_id, item_id in p.claims:
            rows[item_id].add(a_id)
        same_rater_twice += sum(1 for s in rows.values() if len(s) > 1)
    doubles = over + finished_over + same_rater_twice
    users = {u.username: u.pk for u in get_user_model().objects.filter(username__startswith="doc")}
    existing = set(Assignment.objects.filter(item__study=study).values_list("pk", "item_id", "rater_id"))
    lost = 0
    for p in physicians:
        for a_id, item_id in p.claims:
            if (a_id, item_id, users[p.username]) not in existing:
                lost += 1
        lost += len(p.refused)
        notes.extend(f"{p.username}: refused {r}" for r in p.refused[:3])
    statuses = dict(Item.objects.filter(study=study).values_list("status").annotate(n=Count("pk")).order_by())
    notes.append(f"items by status: {statuses}")
    return doubles, lost, notes


def _warm_up(port: int, token: str, workers: int) -> None:
    """Each worker loads the URLconf and every app's views on its first request; keep that out of the figures."""

    def hit() -> None:
        for _ in range(5):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", "/api/review/queue/", headers={"Authorization": f"Token {token}"})
            conn.getresponse().read()
            conn.close()

    threads = [threading.Thread(target=hit) for _ in range(workers * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _run_size(n: int, admin: Any, tokens: dict[str, str], args: argparse.Namespace, server: subprocess.Popen) -> dict:
    usernames = sorted(tokens)[:n]
    study_id = _study(admin, usernames, f"{STUDY_NAME} ({n} physicians)")
    print(f"\n== {n} physicians: gunicorn {args.workers} workers x {args.threads} thread(s), think {args.think}s, "
          f"{args.seconds:.0f}s ...", flush=True)
    workers = child_pids(server.pid)
    load_before = os.getloadavg()[0]
    cpu_before = _cpu_seconds(workers)
    database_before = _cpu_seconds(_database_pids())
    client_before = time.process_time()
    started = time.monotonic()
    until = started + args.seconds
    physicians = [
        Physician(name, tokens[name], args.port, study_id, until, args.think, seed=i)
        for i, name in enumerate(usernames)
    ]
    for p in physicians:
        p.start()
    for p in physicians:
        p.join()
    elapsed = time.monotonic() - started
    server_cpu = _cpu_seconds(workers) - cpu_before
    # Backends that exited during the run are not counted: the server keeps its connections (CONN_MAX_AGE).
    database_cpu = _cpu_seconds(_database_pids()) - database_before
    client_cpu = time.process_time() - client_before
    load_after = os.getloadavg()[0]

    print(f"{'call':<8}{'n':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
    p95 = {}
    for kind in ("next", "save", "submit"):
        values = [v for p in physicians for v in p.latency[kind]]
        p50, p95[kind], p99 = _percentiles(values)
        print(f"{kind:<8}{len(values):>7}{p50:>10.1f}{p95[kind]:>10.1f}{p99:>10.1f}")
    requests = sum(len(v) for p in physicians for v in p.latency.values())
    submitted = sum(p.submitted for p in physicians)
    cpu_per_request = server_cpu * 1000 / max(requests, 1)
    database_per_request = database_cpu * 1000 / max(requests, 1)
    memory = largest_peak_rss_mb(workers) or 0.0
    print(f"throughput: {requests / elapsed:.1f} requests/s, {submitted / elapsed:.1f} submissions/s "
          f"({submitted} submissions in {elapsed:.1f} s)")
    print(f"CPU per request: gunicorn workers {cpu_per_request:.1f} ms, "
          f"PostgreSQL {database_per_request:.1f} ms, "
          f"simulated clients {client_cpu * 1000 / max(requests, 1):.1f} ms "
          f"(load average {load_before:.1f} before, {load_after:.1f} after, on {os.cpu_count()} CPUs); "
          f"workers' peak memory {memory:.0f} MB")
    doubles, lost, notes = _check(study_id, physicians)
    errors = [e for p in physicians for e in p.errors]
    print(f"double assignments: {doubles}")
    print(f"lost claims: {lost}")
    print(f"client errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    for note in notes:
        print(note)
    return {"physicians": n, "requests": requests, "elapsed": elapsed, "server_cpu": server_cpu,
            "cpu_ms": cpu_per_request, "db_cpu_ms": database_per_request, "next_p95": p95["next"],
            "submit_p95": p95["submit"],
            "memory_mb": memory, "doubles": doubles, "lost": lost, "errors": len(errors)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--physicians", default="50,100,200", help="comma-separated sizes, e.g. 50,100,200")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker (gthread if > 1)")
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between calls, seconds (0: none)")
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--app-root", type=Path, default=ROOT, help="the medreview checkout to serve (default: this one)")
    args = parser.parse_args()
    sizes = [int(n) for n in str(args.physicians).split(",") if n.strip()]

    import socket

    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", args.port)) == 0:
            raise SystemExit(f"port {args.port} is already in use; pass --port")
    print(f"serving {ROOT}; database {args.database_url}: recreating, migrating, seeding {args.items} items ...",
          flush=True)
    _recreate_database(args.database_url)
    env = {**os.environ, "DATABASE_URL": args.database_url, "SECRET_KEY": "queue-benchmark-key",
           "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost", "CONN_MAX_AGE": "600", "LOG_LEVEL": "WARNING",
           # plain HTTP on the loopback: no HTTPS redirect, no Secure-only cookies
           "SECURE_COOKIES": "0"}
    python = str(Path(__file__).resolve().parent.parent / ".venv" / "bin" / "python")
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    _django(args.database_url)
    admin, tokens = _seed(args.items, max(sizes))

    gunicorn = [str(Path(python).parent / "gunicorn"), "medreview.wsgi:application", "-w", str(args.workers),
                "-b", f"127.0.0.1:{args.port}", "--log-level", "warning", "--timeout", "120"]
    if args.threads > 1:
        gunicorn += ["--threads", str(args.threads), "-k", "gthread"]
    server = subprocess.Popen(gunicorn, cwd=ROOT, env=env)
    results = []
    try:
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{args.port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("gunicorn did not come up")
        _warm_up(args.port, next(iter(tokens.values())), args.workers)
        for n in sizes:
            results.append(_run_size(n, admin, tokens, args, server))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    print(f"\n{'physicians':>10}{'CPU ms/req':>12}{'DB ms/req':>11}{'next p95':>10}{'submit p95':>12}{'req/s':>8}{'peak MB':>9}"
          f"{'errors':>8}{'doubles':>9}{'lost':>6}")
    for r in results:
        print(f"{r['physicians']:>10}{r['cpu_ms']:>12.1f}{r['db_cpu_ms']:>11.1f}{r['next_p95']:>10.1f}{r['submit_p95']:>12.1f}"
              f"{r['requests'] / r['elapsed']:>8.1f}{r['memory_mb']:>9.0f}{r['errors']:>8}{r['doubles']:>9}{r['lost']:>6}")
    if len(results) > 1:
        xs = [float(r["physicians"]) for r in results]

        def grows(key: str) -> str:
            return slope_text(xs, [r[key] for r in results])

        print("log-log slope against physicians: "
              f"server CPU {grows('server_cpu')}, CPU per request {grows('cpu_ms')}, "
              f"next p95 {grows('next_p95')}, peak memory {grows('memory_mb')}")
    if any(r["doubles"] or r["lost"] for r in results):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
