#!/usr/bin/env python3
"""A queue request's processor time in one process: claim, draft, submit through the API with a token.

    .venv/bin/python benchmarks/queue_cpu.py [--database-url postgres://.../medreview_queue_bench]
        [--items 80] [--raters 20] [--app-root DIR]

Runs against the database `benchmarks/queue_load.py` left behind (its latest study and physicians;
run that first, with the same --database-url), in this process through Django's test client: no
gunicorn, no network, no other request competing for a processor. Prints the requests made and the
process's processor time per request (PostgreSQL's own time is not in it), the figure that
`queue_load.py` reads from gunicorn's workers but without the contention of a loaded machine, so it
moves less from run to run. Then the web stack's own part of that figure: a request the claim
answers 404 (a study that does not exist) passes every middleware, REST framework, the token check
and the claim's access query, and does nothing else. --app-root measures another checkout of
medreview (its code, this script), so two trees can be compared back to back on the same database;
the database must be migrated by the newest of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_queue_bench"


def _setup(root: Path, url: str) -> None:
    sys.path.insert(0, str(root))
    os.chdir(root)
    os.environ.update(
        DATABASE_URL=url, SECRET_KEY="queue-benchmark-key", DJANGO_SETTINGS_MODULE="medreview.settings", DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver", CONN_MAX_AGE="600", LOG_LEVEL="WARNING", SECURE_COOKIES="0",
    )
    import django

    django.setup()


def _rate_one(client: Any, study_id: int) -> int:
    """Claim, save a draft, submit: the requests made (1 when nothing is left)."""
    body = client.post(f"/api/review/studies/{study_id}/next/", content_type="application/json").json()
    if not body["assignment"]:
        return 1
    pk = body["assignment"]["id"]
    labels = {f["id"]: {"label": f["categories"][0]["value"], "comment": ""} for f in body["fields"]}
    draft = {"draft": dict(list(labels.items())[:2]), "seconds_spent": 20}
    response = client.put(f"/api/review/assignments/{pk}/draft/", json.dumps(draft), content_type="application/json")
    if response.status_code != 200:
        raise SystemExit(f"draft of assignment {pk}: {response.status_code} {response.content[:200]!r}")
    submit = {"labels": labels, "seconds_spent": 45}
    response = client.post(f"/api/review/assignments/{pk}/submit/", json.dumps(submit), content_type="application/json")
    if response.status_code != 200:
        raise SystemExit(f"submit of assignment {pk}: {response.status_code} {response.content[:200]!r}")
    return 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--items", type=int, default=80, help="items rated in the measured loop (default 80)")
    parser.add_argument("--raters", type=int, default=20, help="physicians taking turns (default 20)")
    parser.add_argument("--app-root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    _setup(args.app_root.resolve(), args.database_url)

    from django.test import Client
    from knox.models import AuthToken

    from annotation.models import Study, StudyMember

    study = Study.objects.order_by("-pk").first()
    if study is None:
        raise SystemExit(f"{args.database_url}: no study; run benchmarks/queue_load.py with this --database-url first")
    members = StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user")
    clients = [Client(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=m.user)[1]}")
               for m in members.order_by("pk")[: args.raters]]
    for client in clients[:4]:  # the first requests of a process compile and cache what later ones reuse
        _rate_one(client, study.pk)
    requests = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for k in range(args.items):
        requests += _rate_one(clients[k % len(clients)], study.pk)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{args.app_root}: {requests} requests on study {study.pk}: {cpu / requests * 1000:.2f} ms of processor "
          f"time a request in this process, {wall / requests * 1000:.2f} ms wall")
    print(f"{args.app_root}: the web stack alone (a claim answered 404): {_stack_alone(clients) * 1000:.2f} ms of "
          "processor time a request")


def _stack_alone(clients: list[Any], rounds: int = 15) -> float:
    """Processor seconds a request of a claim on a study that does not exist (each client `rounds`
    times, well within the API's per-user rate)."""
    import logging

    missing = "/api/review/studies/2147483647/next/"
    quiet = logging.getLogger("django.request")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # Django logs every 404 as a warning
    try:
        for client in clients:
            status = client.post(missing, content_type="application/json").status_code
            if status != 404:
                raise SystemExit(f"a claim on a study that does not exist: {status}, not 404")
        cpu = time.process_time()
        for _ in range(rounds):
            for client in clients:
                client.post(missing, content_type="application/json")
        return (time.process_time() - cpu) / (rounds * len(clients))
    finally:
        quiet.setLevel(level)


if __name__ == "__main__":
    main()
