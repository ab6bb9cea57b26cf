"""What `manage.py import_cases --help` loads (issue 26): a command that imports a file starts without
the statistics, charts, report, OpenAI or admin code, so its start-up stays short."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Loaded by the report pages, the grading jobs or the admin: never by a bare import command.
NOT_LOADED = (
    "scipy", "pandas", "matplotlib", "openai", "numpy", "statsmodels", "reportlab",
    "agreement.reports", "agreement.metrics", "agreement.charts", "graders.jobs", "graders.endpoints.client",
)

_LIST_MODULES = """
import atexit, runpy, sys
sys.path.insert(0, ".")
atexit.register(lambda: print("\\n".join(sorted(sys.modules))))
sys.argv = ["manage.py", "import_cases", "--help"]
runpy.run_path("manage.py", run_name="__main__")
"""


def loaded_modules() -> list[str]:
    env = {**os.environ, "SECRET_KEY": "startup-test-key", "DJANGO_SETTINGS_MODULE": "medreview.settings"}
    out = subprocess.run([sys.executable, "-c", _LIST_MODULES], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True, timeout=120).stdout
    return [line for line in out.splitlines() if line and " " not in line]


def test_it_starts_import_cases_without_statistics_reports_openai_or_the_admin() -> None:
    modules = loaded_modules()
    assert "cases.management.commands.import_cases" in modules
    loaded = sorted({m for m in modules for banned in NOT_LOADED if m == banned or m.startswith(banned + ".")})
    assert loaded == []
    # No app's admin module either: they are discovered when the URLs load (medreview/urls.py).
    assert [m for m in modules if m.endswith(".admin") and not m.startswith("django.")] == []
