"""What a new user trips over (issue 9): configuration errors in one line, the README's commands as
typed, `create_study` refusing an impossible sample and a duplicate name, JSON report counts as
whole numbers, a clean working tree after the quick start."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.annotation.builders import make_cases
from tests.conftest import make_user

ROOT = Path(__file__).resolve().parents[1]


def plain_env(**extra: str) -> dict[str, str]:
    """A shell as a new user has it: none of the test suite's variables."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE", "TASKS_BACKEND", "MEDREVIEW_DEV_TOOLS",
                        "DATABASE_URL")}
    env.update(extra)
    return env


def test_a_missing_secret_key_is_one_clear_line_not_a_traceback() -> None:
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=plain_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "SECRET_KEY" in lines[0] and "dev.py manage" in lines[0]


def test_a_malformed_number_setting_is_one_clear_line() -> None:
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT,
                          env=plain_env(DEBUG="1", CONN_MAX_AGE="ten"), capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "CONN_MAX_AGE" in done.stderr and "'ten'" in done.stderr


def test_dev_py_manage_runs_a_command_as_the_readme_types_it(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "dev.py", "manage", "check"], cwd=ROOT,
                          env=plain_env(DATABASE_URL=f"sqlite:///{tmp_path / 'dev.sqlite3'}"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no issues" in done.stdout


def test_the_readme_commands_use_the_working_form() -> None:
    readme = (ROOT / "README.md").read_text()
    # A bare `manage.py` needs SECRET_KEY: allowed only in a block that exports it first.
    for block in re.findall(r"```bash\n(.*?)```", readme, re.DOTALL):
        if re.search(r"^\S*\.venv/bin/python manage\.py", block, re.MULTILINE):
            assert "SECRET_KEY=" in block, block
    assert "SECURE_COOKIES" in readme and "--noinput" in readme and "DJANGO_SUPERUSER_PASSWORD" in readme
    for variable in ("MEDIA_ROOT", "CONN_MAX_AGE", "LOG_LEVEL", "MEDREVIEW_ADDR", "STATIC_ROOT"):
        assert f"`{variable}`" in readme, variable
    named = re.findall(r"import_cases \S+ (\S+\.jsonl?|\S+\.csv)", readme) + re.findall(r"--input (\S+\.csv)", readme)
    assert named
    for name in named:
        assert (ROOT / name).exists(), f"README names {name}, which is not in the repository"


def test_generated_files_are_ignored_by_git() -> None:
    paths = ["medreview.egg-info/PKG-INFO", "report.xlsx", "agreement-study1.csv", "labels.csv", "report.json"]
    # --no-index: the rules themselves (medreview.egg-info was committed once; the lead untracks it).
    done = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert sorted(done.stdout.split()) == sorted(paths)


@pytest.mark.django_db
def test_create_study_refuses_a_sample_larger_than_what_is_there() -> None:
    make_user("boss", role="admin")
    make_cases(9)
    with pytest.raises(CommandError, match="9"):
        call_command("create_study", "Too big", "--admin", "boss", "--tasks", "narrative-quality",
                     "--kind", "case", "--sample", "50", stdout=io.StringIO())


@pytest.mark.django_db
def test_create_study_refuses_the_same_name_twice() -> None:
    make_user("boss", role="admin")
    make_cases(3)
    args = ["Narratives 2025", "--admin", "boss", "--tasks", "narrative-quality", "--kind", "case"]
    call_command("create_study", *args, stdout=io.StringIO())
    with pytest.raises(CommandError, match="already"):
        call_command("create_study", *args, stdout=io.StringIO())


@pytest.mark.django_db
def test_json_report_counts_are_whole_numbers(physician_a, physician_b, inspector) -> None:
    from tests.agreement.builders import reliability_study

    data = reliability_study([physician_a, physician_b, inspector], n_cases=3, n_runs=2, invalid_every=9)
    out = io.StringIO()
    call_command("agreement_report", "--study", str(data.study.pk), "--format", "json", "--stratify-by", "language",
                 stdout=out)
    report = json.loads(out.getvalue())
    assert all(isinstance(v, int) for v in report["counts"].values())
    counts = [(key, column, row[column]) for key, table in report["tables"].items() for row in table["rows"]
              for column in row if column == "n" or column.startswith("n_")]
    assert counts
    assert [c for c in counts if not (c[2] is None or type(c[2]) is int)] == []
