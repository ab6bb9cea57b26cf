"""Physicians saving drafts and submitting at once on a SQLite *file* database (issue 21).

Run in its own process by tests/annotation/rating/test_sqlite_contention.py (a file database, not the
test run's in-memory one, and the project's SQLite settings as the quick start uses them):

    DATABASE_URL=sqlite:////tmp/x.sqlite3 DJANGO_SETTINGS_MODULE=tests.settings \
        .venv/bin/python -m tests.annotation.rating.sqlite_contention --raters 4 --items 3

Each rater runs two threads on one claimed item at a time, as the page does when Enter is pressed
during an autosave: one posts draft saves, the other submit-and-next. Prints one JSON line: requests,
server errors (5xx other than the busy 503), busy answers (503), and the first errors seen.
"""

from __future__ import annotations

import argparse
import json
import threading

import django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--raters", type=int, default=4)
    parser.add_argument("--items", type=int, default=3, help="items each rater submits")
    args = parser.parse_args()
    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host

    call_command("migrate", verbosity=0, interactive=False)
    run(args.raters, args.items)


def run(raters: int, items: int) -> None:
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from accounts.models import Rank, Role
    from annotation.fields import item_fields
    from annotation.models import Assignment, Rating
    from tests.annotation.builders import form_data, labels_for, make_cases, running_study
    from tests.conftest import make_user

    make_cases(raters * items)
    admin = make_user("contention-admin", role=Role.ADMIN)
    people = [make_user(f"contention{i}", role=Role.PHYSICIAN, rank=Rank.ATTENDING) for i in range(raters)]
    study = running_study(admin, raters=people, tasks=["narrative-quality", "criterion-validity"],
                          raters_per_item=1)
    connection.close()
    lock = threading.Lock()
    tally = {"requests": 0, "server_errors": 0, "busy": 0, "submitted": 0, "errors": []}

    def note(response, what: str) -> None:
        with lock:
            tally["requests"] += 1
            if response.status_code == 503:
                tally["busy"] += 1
            elif response.status_code >= 500:
                tally["server_errors"] += 1
                if len(tally["errors"]) < 5:
                    tally["errors"].append(f"{what}: HTTP {response.status_code}")

    def rater(i: int) -> None:
        client = Client(raise_request_exception=False)
        client.force_login(people[i])
        response = client.post(reverse("annotation:next_item", args=[study.pk]))
        note(response, "claim")
        try:
            for _ in range(items):
                a = Assignment.objects.filter(rater=people[i], state__in=Assignment.LEASED_STATES).first()
                if a is None:
                    break
                labels = labels_for(a, {"narrative-quality": "1", "criterion-validity": "agree"})
                done = threading.Event()

                def drafts(a: Assignment = a, labels: dict = labels, done: threading.Event = done) -> None:
                    drafting = Client(raise_request_exception=False)
                    drafting.force_login(people[i])
                    try:
                        while not done.is_set():
                            note(drafting.post(reverse("annotation:save_draft", args=[a.pk]), form_data(labels)),
                                 "draft")
                    finally:
                        connection.close()

                saver = threading.Thread(target=drafts)
                saver.start()
                for _attempt in range(20):  # the page retries a busy answer
                    response = client.post(reverse("annotation:submit_and_next", args=[a.pk]), form_data(labels))
                    note(response, "submit")
                    if response.status_code != 503:
                        break
                done.set()
                saver.join()
                if Rating.objects.filter(assignment=a).count() == len(item_fields(a.item)):
                    with lock:
                        tally["submitted"] += 1
        finally:
            connection.close()

    threads = [threading.Thread(target=rater, args=(i,)) for i in range(raters)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
