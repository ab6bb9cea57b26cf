"""How medreview talks to PostgreSQL: parameters bound by the server and repeated statements prepared
once per connection (medreview/settings, DATABASE_PREPARED_STATEMENTS in docs/deployment.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

from annotation.models import Assignment
from tests.factories import make_case

ROOT = Path(__file__).resolve().parent.parent


def _database_options(**env: str) -> str:
    """The OPTIONS the settings give the default database in a fresh process with `env`."""
    code = "from django.conf import settings; print(sorted(settings.DATABASES['default'].get('OPTIONS', {}).items()))"
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "medreview.settings", "SECRET_KEY": "x" * 50, **env},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_it_binds_parameters_on_the_server_and_prepares_repeated_statements():
    options = _database_options(DATABASE_URL="postgres://postgres@127.0.0.1:5432/any")
    assert "('server_side_binding', True)" in options and "('prepare_threshold', 5)" in options


def test_it_prepares_nothing_when_the_pooler_cannot_keep_prepared_statements():
    options = _database_options(DATABASE_URL="postgres://postgres@127.0.0.1:5432/any", DATABASE_PREPARED_STATEMENTS="0")
    assert "('server_side_binding', True)" in options and "('prepare_threshold', None)" in options


def test_it_leaves_sqlite_without_postgresql_options(tmp_path: Path):
    options = _database_options(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert "server_side_binding" not in options and "prepare_threshold" not in options


def test_it_runs_a_statement_repeated_on_a_connection_as_a_prepared_statement(postgres_only):
    revision = make_case(narrative="Fever for three days.")
    for _ in range(6):
        list(Assignment.objects.filter(item__revision_id=revision.pk))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('FROM "annotation_assignment"' in sql for sql in prepared), prepared
