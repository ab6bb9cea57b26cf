"""Report pages and report PDFs of the demo studies, on PostgreSQL, timed as a researcher meets them.

    .venv/bin/python benchmarks/report_demo.py [--database-url URL] [--repeat 5]

Builds (once; reused on later runs) the demo data set in its own database (`load_demo`) and runs
every demo grader on the demo studies of its kind against the local fake OpenAI-compatible server
(started here on a free port), so each report has its charts, grader tables and pairwise ratings.
The URL map is loaded first, as a server does when it starts (runserver's checks, medreview/wsgi.py).
Then, for every demo study, through Django's test client, each figure the median of --repeat runs:

- FIRST VIEW: the report page with an empty cache (Django's cache cleared before each GET): labels
  read, every table computed, the HTML rendered. Target < 1 s.
- PDF, EMPTY CACHE: the PDF with the cache cleared, so the report and every chart are computed and
  drawn at 300 dpi. Target < 2 s.
- PDF after the page: the PDF once the page and its chart images were viewed (what a researcher who
  looks before downloading gets): the charts come from the cache.

The load average is printed first: the machine is shared, and other jobs slow every figure.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from html import unescape
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_report_bench"
DEMO_KEY = "MEDREVIEW_GRADER_KEY_DEMO"


def _setup(url: str) -> None:
    from agreement_scale import _ensure_database

    _ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "report-benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "medreview.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("SECURE_COOKIES", "0")
    os.environ["TASKS_BACKEND"] = "immediate"  # the demo graders' jobs run here, in this process
    os.environ.setdefault("GRADER_ALLOWED_HOSTS", "127.0.0.1,localhost")  # the fake endpoint
    os.environ[DEMO_KEY] = "demo"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _demo_with_grades() -> None:
    """load_demo, then every demo grader on the demo studies of its kind (once)."""
    from django.core.management import call_command
    from django.db import transaction

    from annotation.models import Study
    from demo.graders import DEMO_GRADERS
    from devtools.fake_openai import FakeOpenAIServer
    from graders import services
    from graders.models import GraderConfig, GraderKind, GradingJob

    call_command("load_demo", stdout=StringIO())
    if GradingJob.objects.exists():
        return
    targets = {GraderKind.RUBRIC_GRADER: "response_criterion", GraderKind.LLM_JUDGE: "response_criterion",
               GraderKind.LIKERT_JUDGE: "response_axis", GraderKind.PAIRWISE_JUDGE: "pairwise"}
    with FakeOpenAIServer() as server:
        for name, kind in DEMO_GRADERS:
            GraderConfig.objects.filter(name=name).update(base_url=server.base_url)
            config = GraderConfig.objects.get(name=name)
            for study in Study.objects.filter(name__startswith="Demo:", tasks__target=targets[kind]).distinct():
                with transaction.atomic():  # the job's runners start when it commits (immediate backend)
                    job = services.grading_job_create(config=config, selection={"study": study.pk}, created_by=None)
                job.refresh_from_db()
                print(f"  graded {study.name} with {name}: {job.status}, {job.done} of {job.total}")


def _median(values: list[tuple[float, float]]) -> str:
    """Wall clock and this process's CPU time (the server's work: it runs here, under the test client).

    The CPU figure does not grow when other jobs share the cores; the wall figure does.
    """
    wall, cpu = [w for w, _ in values], [c for _, c in values]
    return (f"{statistics.median(wall):.3f} s (best {min(wall):.3f}, worst {max(wall):.3f}); "
            f"CPU {statistics.median(cpu):.3f} s")


class _Clock:
    """Wall and CPU time of a block, appended to a list."""

    def __init__(self, into: list[tuple[float, float]]) -> None:
        self.into = into

    def __enter__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def __exit__(self, *exc: object) -> None:
        self.into.append((time.perf_counter() - self.wall, time.process_time() - self.cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _setup(args.database_url)
    _demo_with_grades()

    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.test import Client, override_settings
    from django.urls import get_resolver

    from annotation.models import Study

    get_resolver().url_patterns  # noqa: B018  (a server loads its URL map, and every view, when it starts)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load} (other jobs slow every figure below)")
    researcher = get_user_model().objects.get(username="researcher1")
    static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    storages = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}, "staticfiles": static}
    worst_page, worst_pdf = 0.0, 0.0
    with override_settings(ALLOWED_HOSTS=["testserver"], STORAGES=storages):
        client = Client()
        client.force_login(researcher)
        for study in Study.objects.filter(name__startswith="Demo:").order_by("pk"):
            page_url, pdf_url = f"/reports/study/{study.pk}/", f"/reports/study/{study.pk}/report.pdf"
            first: list[tuple[float, float]] = []
            cold_pdf: list[tuple[float, float]] = []
            warm_pdf: list[tuple[float, float]] = []
            charts: list[tuple[float, float]] = []
            size = 0
            for _ in range(args.repeat):
                cache.clear()
                with _Clock(first):
                    html = client.get(page_url).content.decode()
                images = [unescape(u) for u in re.findall(r'<img src="([^"]+)"', html)]
                with _Clock(charts):
                    assert all(client.get(u).status_code == 200 for u in images)
                with _Clock(warm_pdf):
                    client.get(pdf_url)
                cache.clear()
                with _Clock(cold_pdf):
                    response = client.get(pdf_url)
                size = len(response.content)
            worst_page = max(worst_page, statistics.median(w for w, _ in first))
            worst_pdf = max(worst_pdf, statistics.median(w for w, _ in cold_pdf))
            print(f"\n{study.name} (study {study.pk}): {len(images)} charts, PDF {size:,} bytes")
            print(f"  FIRST VIEW, EMPTY CACHE: median {_median(first)}")
            print(f"  its {len(images)} chart images (300 dpi, drawn): {_median(charts)}")
            print(f"  PDF, EMPTY CACHE: median {_median(cold_pdf)}")
            print(f"  PDF after the page (charts cached): median {_median(warm_pdf)}")
    print(f"\nslowest study (wall clock): first view {worst_page:.3f} s ({'meets' if worst_page < 1 else 'MISSES'} the < 1 s target), "
          f"PDF {worst_pdf:.3f} s ({'meets' if worst_pdf < 2 else 'MISSES'} the < 2 s target)")


if __name__ == "__main__":
    main()
