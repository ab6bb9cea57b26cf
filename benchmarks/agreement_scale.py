"""Agreement reports at 1x, 3x and 10x ClinConsensus scale, on PostgreSQL.

    .venv/bin/python benchmarks/agreement_scale.py [--database-url URL] [--sizes 1,3,10] [--repeat 3] [--rebuild]

1x is 250 cases x 11 models x 30 criteria = 82,500 criterion decisions for each of two physician
groups (165,000 first-round ratings) plus one rubric grader (82,500 decisions); 10x is 1,650,000
ratings (825,000 per group) and 825,000 grader decisions. Each size's study is built once (labels
written with COPY) and reused on later runs unless --rebuild. Then, at each size:

(a) from the database, end to end: the full report computed in a warm process (best and median of
    --repeat; targets at 1x < 0.5 s, at 10x < 3 s), the report page with an empty cache (the first,
    cold view; target at 1x < 1 s) and cached, the PDF with an empty cache (target at 1x < 10 s);
    wall and CPU seconds and the process's peak memory;
(b) AC1 with SE, Macro-F1 and Pearson on the same arrays with medreview's functions and with
    irrCAC / scikit-learn / scipy, side by side, as a ratio (targets: AC1 >= 30x, Macro-F1 >= 50x).

Last, every figure's growth over the sizes (`growth.py`): time, peak memory and the log-log slope.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_agreement_bench"
N_CASES, N_MODELS, N_CRITERIA = 250, 11, 30
GROUP_SIZES = (12, 8)  # raters per expert group; each response goes to one rater of each group
STUDY_NAME = "Agreement benchmark (ClinConsensus scale)"


def _ensure_database(url: str) -> None:
    import psycopg
    from dj_database_url import parse

    cfg = parse(url)
    name = cfg["NAME"]
    with psycopg.connect(
        host=cfg["HOST"] or "127.0.0.1", port=cfg["PORT"] or 5432, user=cfg["USER"] or "postgres",
        password=cfg["PASSWORD"] or None, dbname="postgres", autocommit=True,
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def _setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "agreement-benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "medreview.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("SECURE_COOKIES", "0")  # the page is timed over plain HTTP: no HTTPS redirect
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _copy_rows(model: Any, columns: dict[str, Any], n: int) -> None:
    """Write n rows of `model` with PostgreSQL's COPY: `columns` (field attname -> array of n values)
    vary, every other column takes its field's default (auto_now_add: now)."""
    import io
    import json

    import pandas as pd
    from django.db import connection
    from django.utils import timezone

    now = timezone.now().isoformat()
    data: dict[str, Any] = {}
    for f in model._meta.concrete_fields:
        if f.primary_key:
            continue
        if f.attname in columns:
            data[f.column] = columns[f.attname]
        elif getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False):
            data[f.column] = now
        else:
            default = f.get_default()
            data[f.column] = json.dumps(default) if isinstance(default, dict | list) else default
    frame = pd.DataFrame({k: (v if hasattr(v, "__len__") and not isinstance(v, str) else [v] * n)
                          for k, v in data.items()})
    buf = io.StringIO()
    frame.to_csv(buf, index=False, header=False, na_rep="\\N")
    cols = ", ".join(f'"{c}"' for c in frame.columns)
    sql = f"COPY {model._meta.db_table} ({cols}) FROM STDIN WITH (FORMAT csv, NULL '\\N')"
    with connection.cursor() as cursor, cursor.copy(sql) as copy:
        copy.write(buf.getvalue())


def _generate(size: float) -> int:
    """Bulk-insert the benchmark study at `size` times ClinConsensus scale; returns its id."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from accounts.models import Profile, Rank, Role
    from annotation.models import Assignment, Item, Rating, Scale, ScaleCategory, Study, TaskType
    from cases.models import Case, CaseRevision, Dataset, ModelResponse, Release, RubricCriterion
    from graders.models import GraderDecision, GraderRun

    rng = np.random.default_rng(2026)
    n_cases = round(N_CASES * size)
    t0 = time.perf_counter()
    # One transaction: a half-built benchmark would be reused by the next run and give wrong figures.
    with transaction.atomic():
        scale, _ = Scale.objects.get_or_create(slug="met-not-met", defaults={"name": "Met / not met"})
        for order, value in enumerate(("met", "not_met")):
            ScaleCategory.objects.get_or_create(scale=scale, value=value, defaults={"label": value, "order": order})
        task, _ = TaskType.objects.get_or_create(
            slug="grader-reliability",
            defaults={"name": "Grader reliability", "scale": scale, "target": "response_criterion",
                      "item_kind": "response"},
        )
        dataset, _ = Dataset.objects.get_or_create(name="ClinConsensus-bench")
        release = Release.objects.create(
            dataset=dataset, label=f"bench-{time.time_ns()}", format="generic", file_name="bench.json",
            sha256=f"{time.time_ns():064d}"[-64:],
        )
        cases = Case.objects.bulk_create(
            (Case(dataset=dataset, external_id=f"bench-{release.pk}-{i}") for i in range(n_cases)), batch_size=5000,
        )
        revisions = CaseRevision.objects.bulk_create(
            (CaseRevision(case=c, number=1, release=release, content_hash=f"{c.pk:064d}", language="zh",
                          difficulty=("low", "medium", "high")[i % 3], register=("lay", "professional")[i % 2])
             for i, c in enumerate(cases)), batch_size=5000,
        )
        for c, r in zip(cases, revisions, strict=True):
            c.current_revision = r
        Case.objects.bulk_update(cases, ["current_revision"], batch_size=5000)
        points = rng.integers(-5, 11, size=(n_cases, N_CRITERIA))
        points[points == 0] = 1
        axes = ["Accuracy", "Completeness", "Communication Quality", "Context Awareness", "Safety"]
        criteria = RubricCriterion.objects.bulk_create(
            (RubricCriterion(revision=r, order=k, text=f"criterion {k}", points=int(points[i, k]), axis=axes[k % 5])
             for i, r in enumerate(revisions) for k in range(N_CRITERIA)),
            batch_size=5000,
        )
        models = [f"model-{m:02d}" for m in range(N_MODELS)]
        responses = ModelResponse.objects.bulk_create(
            (ModelResponse(revision=r, model_name=m, text="answer") for r in revisions for m in models),
            batch_size=5000,
        )
        study = Study.objects.create(name=f"{STUDY_NAME} x{size:g}", status=Study.Status.RUNNING, raters_per_item=2)
        study.tasks.set([task])
        User = get_user_model()
        groups: list[list[Any]] = []
        for g, group_size in enumerate(GROUP_SIZES):
            members = []
            for k in range(group_size):
                user = User.objects.create(username=f"bench-{release.pk}-g{g}-{k}")
                Profile.objects.create(
                    user=user, role=Role.PHYSICIAN, rank=Rank.ATTENDING if g == 0 else Rank.CHIEF,
                    pseudonym=f"B{release.pk}-G{g + 1}-{k:02d}",
                )
                members.append(user)
            groups.append(members)
        items = Item.objects.bulk_create(
            (Item(study=study, kind="response", key=f"response:{resp.pk}", revision=resp.revision, response=resp)
             for resp in responses),
            batch_size=5000,
        )
        assignments = Assignment.objects.bulk_create(
            (Assignment(item=item, rater=groups[g][(n * 7 + g) % len(groups[g])], state="submitted")
             for n, item in enumerate(items) for g in range(2)),
            batch_size=5000,
        )
        n_resp = len(responses)
        crit_ids = np.array([c.pk for c in criteria], dtype=np.int64).reshape(n_cases, N_CRITERIA)
        resp_crit = crit_ids[np.arange(n_resp) // N_MODELS]  # n_resp x 30
        quality = rng.random(n_resp)
        truth = rng.random((n_resp, N_CRITERIA)) < quality[:, None]
        # assignments in (response, group) order; group 0 errs 12% of the time, group 1 16%
        flips = rng.random((n_resp, 2, N_CRITERIA)) < np.array([0.12, 0.16])[None, :, None]
        labels = truth[:, None, :] ^ flips
        a_ids = np.array([a.pk for a in assignments], dtype=np.int64)
        crit_rows = np.repeat(resp_crit[:, None, :], 2, axis=1).reshape(-1)
        _copy_rows(Rating, {
            "assignment_id": np.repeat(a_ids, N_CRITERIA), "task_id": task.pk,
            "field_key": np.char.add("criterion:", crit_rows.astype(str)), "criterion_id": crit_rows,
            "round": 1, "label": np.where(labels.reshape(-1), "met", "not_met"),
        }, len(a_ids) * N_CRITERIA)
        run = GraderRun.objects.create(name="Bench rubric grader", kind="rubric-grader", grader_model="bench")
        grader = truth ^ (rng.random((n_resp, N_CRITERIA)) < 0.1)
        invalid = rng.random((n_resp, N_CRITERIA)) < 0.002
        verdict = np.where(invalid, "invalid", np.where(grader, "met", "not_met")).reshape(-1)
        r_ids = np.array([r.pk for r in responses], dtype=np.int64)
        _copy_rows(GraderDecision, {
            "run_id": run.pk, "response_id": np.repeat(r_ids, N_CRITERIA), "criterion_id": resp_crit.reshape(-1),
            "verdict": verdict,
        }, n_resp * N_CRITERIA)
    from django.db import connection

    with connection.cursor() as cursor:
        # Fresh bulk inserts leave the planner without statistics (autovacuum would catch up later).
        cursor.execute("ANALYZE")
    print(f"generated {len(a_ids) * N_CRITERIA:,} ratings and {n_resp * N_CRITERIA:,} grader decisions "
          f"({size:g}x) in {time.perf_counter() - t0:.1f} s")
    return study.pk


def _timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any, float, float]:
    """(best wall s, median wall s, last result, median CPU s, peak MB) of `repeat` calls."""
    from growth import peak_rss_mb, reset_peak_rss

    times, cpus = [], []
    result = None
    reset_peak_rss()
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(times), statistics.median(times), result, statistics.median(cpus), peak_rss_mb()


def _client() -> Any:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.models import Profile, Role

    user, created = get_user_model().objects.get_or_create(username="bench-researcher")
    if created:
        Profile.objects.create(user=user, role=Role.RESEARCHER, pseudonym="bench-researcher")
    client = Client()
    client.force_login(user)
    return client


def _time_page(study_id: int, repeat: int, size: float, growth: Any) -> None:
    """The researcher's report page and PDF through Django's test client: cold (empty cache) and cached."""
    from django.core.cache import cache
    from django.test import override_settings
    from growth import peak_rss_mb, reset_peak_rss

    static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    storages = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}, "staticfiles": static}
    with override_settings(ALLOWED_HOSTS=["testserver"], STORAGES=storages):
        client = _client()
        url = f"/reports/study/{study_id}/"
        cold, cold_cpu, warm = [], [], []
        reset_peak_rss()
        for _ in range(repeat):
            cache.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            response = client.get(url)
            cold.append(time.perf_counter() - t0)
            cold_cpu.append(time.process_time() - c0)
            assert response.status_code == 200, response.status_code
            t0 = time.perf_counter()
            client.get(url)
            warm.append(time.perf_counter() - t0)
        page_mb = peak_rss_mb()
        reset_peak_rss()
        pdf, pdf_cpu = [], []
        for _ in range(max(1, repeat // 2)):
            cache.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            response = client.get(f"{url}report.pdf")
            pdf.append(time.perf_counter() - t0)
            pdf_cpu.append(time.process_time() - c0)
            assert response.status_code == 200, response.status_code
        pdf_mb = peak_rss_mb()
    c, w, p = statistics.median(cold), statistics.median(warm), statistics.median(pdf)
    print(f"  REPORT PAGE, EMPTY CACHE (first view, end to end through Django): median {c:.3f} s of {repeat} "
          f"(best {min(cold):.3f} s; CPU {statistics.median(cold_cpu):.3f} s; peak {page_mb:,.0f} MB)"
          + ("; target < 1 s: " + ("meets" if c < 1 else "MISSES") if size == 1 else ""))
    print(f"  report page, cached: median {w:.3f} s (best {min(warm):.3f} s)")
    print(f"  PDF, EMPTY CACHE: median {p:.3f} s (CPU {statistics.median(pdf_cpu):.3f} s; peak {pdf_mb:,.0f} MB; "
          f"{len(response.content):,} bytes)" + ("; target < 10 s: " + ("meets" if p < 10 else "MISSES")
                                                 if size == 1 else ""))
    growth.add("report page, empty cache", size, c, page_mb)
    growth.add("report page, cached", size, w)
    growth.add("PDF, empty cache", size, p, pdf_mb)


def _study_for(size: float, rebuild: bool) -> int:
    from annotation.models import Rating, Study

    study = Study.objects.filter(name=f"{STUDY_NAME} x{size:g}").order_by("-pk").first()
    expected = round(N_CASES * size) * N_MODELS * N_CRITERIA * 2
    if rebuild or study is None or Rating.objects.filter(assignment__item__study=study).count() != expected:
        return _generate(size)
    return study.pk


def _measure(size: float, repeat: int, rebuild: bool, growth: Any, *, kernels_only: bool = False) -> None:
    from django.db import connection

    from agreement.selectors import Selection

    study_id = _study_for(size, rebuild)
    n_ratings = round(N_CASES * size) * N_MODELS * N_CRITERIA * 2
    selection = Selection(study_id=study_id)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n=== {size:g}x: study {study_id}, {n_ratings:,} ratings ({n_ratings // 2:,} per expert group), "
          f"{connection.vendor} {connection.settings_dict['NAME']}; load average {load}")

    if not kernels_only:
        _measure_report(study_id, size, repeat, growth)
    _measure_kernels(selection, size, repeat, growth)


def _measure_report(study_id: int, size: float, repeat: int, growth: Any) -> None:
    from django.conf import settings
    from django.db import connection, reset_queries

    from agreement.reports import build_grader_reliability, build_report
    from agreement.selectors import Selection

    selection = Selection(study_id=study_id)
    print("(a) from the database, end to end")
    best, median, tables, cpu, mb = _timed(lambda: build_grader_reliability(selection), repeat)
    print(f"  grader-reliability report: best {best:.3f} s, median {median:.3f} s (CPU {cpu:.3f} s)")
    fid = tables[0].frame
    print(fid[["evaluator", "macro_f1", "n_decisions", "n_invalid", "positive_rate", "pearson_r", "pearson_p",
               "n_cases"]].to_string(index=False))
    growth.add("grader-reliability report", size, median, mb)
    settings.DEBUG = True
    reset_queries()
    full = Selection(study_id=study_id, group_by="rank")
    best_full, median_full, report, cpu_full, mb_full = _timed(lambda: build_report(full), repeat)
    n_queries = len(connection.queries) // repeat
    settings.DEBUG = False
    target = {1: 0.5, 10: 3.0}.get(size)
    verdict = f"; target < {target} s: " + ("meets" if median_full < target else "MISSES") if target else ""
    print(f"  FULL REPORT (data quality, per rater, reliability, coverage, ranking, expert groups), warm process: "
          f"best {best_full:.3f} s, median {median_full:.3f} s (CPU {cpu_full:.3f} s), {n_queries} queries, "
          f"peak {mb_full:,.0f} MB{verdict}")
    growth.add("full report, warm process", size, median_full, mb_full)
    eg = report.table("expert_groups").frame
    print(f"  expert groups pooled Macro-F1 {eg.iloc[0]['macro_f1']:.4f}, "
          f"share of cases below 0.6: {eg.iloc[0]['share_cases_below_0.6']:.3f}")

    _time_page(study_id, repeat, size, growth)


def _measure_kernels(selection: Any, size: float, repeat: int, growth: Any) -> None:
    import numpy as np
    import pandas as pd
    from irrCAC.raw import CAC
    from scipy import stats
    from sklearn.metrics import f1_score

    from agreement import metrics
    from agreement.reports import group_labels, human_matrix, load_labels

    print("(b) the same arrays: medreview vs reference implementations")
    data = load_labels(selection)
    hm = human_matrix(data)
    g1 = np.isin(hm.rater_ids, [uid for uid, info in data.raters.items() if info.rank == "attending"])
    two = np.stack([group_labels(hm, g1), group_labels(hm, ~g1)], axis=1)  # subjects x 2, 0/1
    codes = two.astype(np.int64)
    print(f"  ratings matrix {two.shape[0]:,} subjects x {two.shape[1]} raters")

    rows = []

    def compare(name: str, ours: Callable[[], Any], theirs: Callable[[], Any], same: Callable[[Any, Any], float],
                repeat: int, target: float) -> None:
        b_ours, _, r_ours, _, _ = _timed(ours, repeat)
        b_theirs, _, r_theirs, _, _ = _timed(theirs, max(1, repeat // 2))
        rows.append((name, b_ours, b_theirs, b_theirs / b_ours, same(r_ours, r_theirs), target))
        growth.add(f"{name.split(' (')[0]} (medreview)", size, b_ours)

    df = pd.DataFrame(two)

    def irr_ac1() -> dict:
        return CAC(df, digits=15).gwet()["est"]

    compare("AC1 with SE (irrCAC)", lambda: metrics.gwet_ac1(codes, [0, 1]), irr_ac1,
            lambda a, b: max(abs(a.value - b["coefficient_value"]), abs(a.se - b["se"])), max(repeat, 20), 30)
    ref, pred = two[:, 0], two[:, 1]
    compare("Macro-F1 (scikit-learn)", lambda: metrics.macro_f1(ref, pred),
            lambda: f1_score(ref, pred, average="macro"), lambda a, b: abs(a.value - b), max(repeat, 20), 50)
    per, consensus = hm.consensus_scores()
    grader_scores = per[:, 0]
    ok = ~np.isnan(grader_scores) & ~np.isnan(consensus)
    x, y = per[ok, 0], consensus[ok]
    compare("Pearson r, p, CI (scipy)", lambda: metrics.pearson(x, y), lambda: stats.pearsonr(x, y),
            lambda a, b: abs(a.value - b.statistic), max(repeat, 20), 0)
    print(f"  {'metric':28s} {'medreview s':>12s} {'reference s':>12s} {'ratio':>8s} {'max |diff|':>11s}")
    for name, ours, theirs, ratio, diff, want in rows:
        goal = (f"  (target >= {want}x: " + ("meets" if ratio >= want else "MISSES") + ")") if want else ""
        print(f"  {name:28s} {ours:12.5f} {theirs:12.5f} {ratio:7.1f}x {diff:11.2e}{goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--rebuild", action="store_true", help="generate fresh studies even if they exist")
    parser.add_argument("--sizes", default="1,3,10", help="multiples of ClinConsensus scale (default 1,3,10)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kernels-only", action="store_true", help="only (b): the kernels against the references")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from growth import Growth, parse_sizes

    sizes = parse_sizes(args.sizes)
    _ensure_database(args.database_url)
    _setup(args.database_url)
    print(f"machine: {os.cpu_count()} cores, load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(other jobs slow every figure below; CPU seconds are less affected)")
    growth = Growth("Agreement reports by multiple of ClinConsensus scale")
    for size in sizes:
        # Fewer repeats at the larger sizes: each run there takes seconds.
        _measure(size, args.repeat if size <= 1 else max(1, args.repeat - 1), args.rebuild, growth,
                 kernels_only=args.kernels_only)
    growth.print()


if __name__ == "__main__":
    main()
