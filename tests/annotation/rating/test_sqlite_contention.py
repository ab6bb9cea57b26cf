"""Issue 21: the SQLite quick start under a submit during an autosave.

Four physicians, each saving drafts and submitting the same item at once from two threads, on a
SQLite file database with the project's settings (WAL, busy timeout, IMMEDIATE transactions): no
server error and no busy answer. It runs in its own process (`sqlite_contention`), because the test
run's database is in memory; before issue 21 the same run answered 500 ("database is locked").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.rating.busy import answers_busy_database

ROOT = Path(__file__).resolve().parents[3]


def test_it_sets_sqlite_up_as_an_embedded_database():
    from medreview.settings import DATABASES  # the settings as the quick start reads them

    if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("DATABASE_URL chooses another database")
    options = DATABASES["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in options["init_command"] and "busy_timeout=" in options["init_command"]


def test_it_gives_no_server_error_for_concurrent_draft_saves_and_submits_on_sqlite(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'quickstart.sqlite3'}",
           "DJANGO_SETTINGS_MODULE": "tests.settings"}
    result = subprocess.run(
        [sys.executable, "-m", "tests.annotation.rating.sqlite_contention", "--raters", "4", "--items", "3"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    tally = json.loads(result.stdout.strip().splitlines()[-1])
    assert tally["server_errors"] == 0, tally
    assert tally["busy"] == 0, tally
    assert tally["submitted"] >= 4, tally


def test_it_answers_a_busy_database_with_503_and_keeps_the_labels(rf, physician_a):
    from django.db import OperationalError

    def locked(request):
        raise OperationalError("database is locked")

    request = rf.post("/review/assignments/1/draft/")
    request.user = physician_a
    response = answers_busy_database(json=True)(locked)(request)
    assert response.status_code == 503 and response["Retry-After"] == "1"
    body = json.loads(response.content)
    assert body["busy"] and "labels are kept" in body["errors"][0]
    page = answers_busy_database(json=False)(locked)(request)
    assert page.status_code == 503 and "not submitted, your labels are kept" in page.content.decode()
