"""Import benchmark at the size of the real releases (a benchmark, not a timed test).

    .venv/bin/python benchmarks/import_scale.py [--database-url postgres://...] [--keep DIR]
        [--before OTHER_CHECKOUT] [--repeat 3] [--scales 1,3,10] [--only all|compare|growth|files]

Generates a LiveMedBench-scale file (2,756 cases, 16,702 criteria), a LiveClin-scale file
(1,407 question sets, 6,605 MCQs, ~3,750 images: App. J's 3,757) and model responses + grader
results for 3 models, drops and
re-creates its own PostgreSQL database (DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/medreview_bench), migrates it, and imports each file as a user
does: `manage.py import_cases FORMAT FILE ... --json` in a fresh process. Prints, per file: the
command's wall time (start-up, parse, validation and write: what the user waits for), the import's
own time as the command reports it, database rows written, rows/s and the command's peak resident
memory (ru_maxrss, Django included). Then it loads the built-in LiveClin taxonomy (`load_taxonomy
liveclin`: 1,450 nodes) and imports the AI labels the LiveClin file carries (`liveclin-labels`: 3
taxonomy levels per case, a stage per MCQ, a modality per image and table, ~16,000 labels).
Target on a 2-core machine: each file <= 10 s and < 500 MB;
issue 9's goal for the LiveMedBench cases file is a command faster than Label Studio's task import
of the same cases (1.3-2.0 s there); issue 26's, the command under 1.2 s end to end and a bare
`import_cases --help` under 0.4 s.

Before that table: with --before (another checkout, e.g. `git worktree add /tmp/before <commit>` or
`git archive <commit> | tar -x -C /tmp/before`, with this .venv), the LiveMedBench cases file's CLI
time and the bare start-up of both checkouts side by side (median of --repeat alternated runs, wall
and processor time: on a busy machine the processor time is the steadier figure); then the growth
run: the LiveMedBench cases file at --scales sizes (1x, 3x, 10x), with its time, memory and the
log-log slope of each against the rows written (1: linear).

Both checkouts' modules are compiled to bytecode first (`python -m compileall`, as `dev.py demo` and
a deployment do): where PYTHONDONTWRITEBYTECODE is set Python would otherwise compile medreview's
modules again in every run. Beside them, the floor: a project with the same Django and third-party
apps and none of medreview's (`migrate --help`), which no command of a Django project starts under,
and below it Django alone (auth and contenttypes on PostgreSQL), the least any Django command costs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from growth import slope_text  # noqa: E402  (this script's own folder)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_bench"
MODELS = ("bench-model-a", "bench-model-b", "bench-model-c")
LMB_CASES, LMB_CRITERIA = 2756, 16702
LC_SETS, LC_MCQS = 1407, 6605
TAXONOMY = ROOT / "cases" / "taxonomies" / "data" / "liveclin.json"

WORDS_EN = [
    "patient", "fever", "cough", "pain", "three", "days", "history", "blood", "pressure",
    "medication", "dose", "doctor", "chest", "abdomen", "headache", "nausea", "mild", "severe",
    "since", "yesterday", "worse", "night", "after", "meals", "taking",
]
WORDS_ZH = list("患者发热咳嗽疼痛三天病史血压药物剂量医生胸部腹部头痛恶心轻度严重昨天加重夜间饭后服用")


def sentence(rng: random.Random, n: int, zh: bool) -> str:
    if zh:
        return "".join(rng.choice(WORDS_ZH) for _ in range(n)) + "。"
    return " ".join(rng.choice(WORDS_EN) for _ in range(n)).capitalize() + "."


def split_evenly(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def livemedbench_cases(rng: random.Random, n_cases: int = LMB_CASES, total_criteria: int = LMB_CRITERIA) -> list[dict]:
    """LiveMedBench-like cases (a third in Chinese) with `total_criteria` rubric items spread over them."""
    cases = []
    for i, n_criteria in enumerate(split_evenly(total_criteria, n_cases)):
        zh = i % 3 == 0
        cases.append({
            "case_id": f"{109000000 + i}",
            "post_time": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T08:00:00",
            "narrative": " ".join(sentence(rng, 14, zh) for _ in range(8)),
            "core_request": sentence(rng, 12, zh),
            "doctor_advice": " ".join(sentence(rng, 14, zh) for _ in range(5)),
            "rubric_items": [
                {"criterion": f"Criterion {j}: " + sentence(rng, 10, zh),
                 "points": rng.choice([10, 8, 7, 6, 5, 4, 3, 2, -5, -8]),
                 "axe": rng.choice(["Accuracy", "Completeness", "Communication Quality", "Context Awareness", "Safety"])}
                for j in range(1, n_criteria + 1)
            ],
        })
    return cases


def generate(directory: Path) -> list[tuple[str, str, str, str | None]]:
    """Write the files; return (label, format, path, model) in import order."""
    rng = random.Random(20260101)
    cases = livemedbench_cases(rng)
    files: list[tuple[str, str, str, str | None]] = []
    lmb_path = directory / "merged_data_rubric.json"
    lmb_path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    files.append(("LiveMedBench cases", "livemedbench", str(lmb_path), None))
    for model in MODELS:
        responses = [
            {"case_id": c["case_id"], "post_time": c["post_time"], "narrative": c["narrative"],
             "core_request": c["core_request"], "model_response": " ".join(sentence(rng, 14, False) for _ in range(10)),
             "finish_reason": "stop", "doctor_advice": c["doctor_advice"]}
            for c in cases
        ]
        path = directory / f"{model}_results.json"
        path.write_text(json.dumps(responses, ensure_ascii=False), encoding="utf-8")
        files.append((f"responses {model}", "livemedbench-responses", str(path), model))
    for model in MODELS:
        grades = []
        for c in cases:
            evaluations = {}
            for j, item in enumerate(c["rubric_items"], start=1):
                score = rng.randint(0, 1)
                evaluations[f"rubric_{j}"] = {**item, "score": score, "weighted_score": score * item["points"]}
            grades.append({"case_id": c["case_id"], "evaluations": evaluations})
        path = directory / f"evaluation_results_{model}.json"
        path.write_text(json.dumps(grades, ensure_ascii=False), encoding="utf-8")
        files.append((f"grades {model}", "livemedbench-grades", str(path), model))

    # A second release in which one case in ten has new text: the revision path at scale.
    changed = [dict(c, narrative=c["narrative"] + " Updated.") if i % 10 == 0 else c for i, c in enumerate(cases)]
    v2 = directory / "merged_data_rubric_v2.json"
    v2.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
    files.append(("LiveMedBench v2 (10% changed)", "livemedbench", str(v2), None))

    # Labels as LiveClin's release writes them, spread over Table 2's 72 clusters.
    taxonomy = json.loads(TAXONOMY.read_text(encoding="utf-8"))
    chapters = {n["code"]: n["name"] for n in taxonomy["nodes"] if n["level"] == 1}
    clusters = [n for n in taxonomy["nodes"] if n["level"] == 2]
    lines = []
    for i, n_mcqs in enumerate(split_evenly(LC_MCQS, LC_SETS)):
        cluster = clusters[i % len(clusters)]
        first_code = cluster["range"].split(",")[0].split("-")[0].strip()
        table = "| Test | Result | Reference |\n|---|---|---|\n" + "\n".join(
            f"| T{k} | {rng.randint(1, 200)} | 1-100 |" for k in range(6)
        )
        lines.append(json.dumps({
            "pmc": f"PMC{11000000 + i}", "Rarity": rng.choice(["Common", "Uncommon", "Rare"]),
            "Level1": f"Chapter {cluster['parent']}: {chapters[cluster['parent']]}",
            "Level2": f"{cluster['name']} ({cluster['range']})", "ICD-10": f"{first_code} Benchmark disease",
            "exam_creation": {"final_policy": {
                "scenario": " ".join(sentence(rng, 14, False) for _ in range(12)),
                "scenario_image_details": [{"caption": "Figure 1", "type": "CT", "url": f"https://example.org/{i}.png"}],
                "scenario_table_details": [{"caption": "Table 1", "type": "Table of Serial Blood Test Results",
                                            "markdown": table}],
                "mcqs": [
                    {"stage": ["Diagnosis", "Investigation", "Treatment", "Follow-up", "Prognosis"][k % 5],
                     "question": sentence(rng, 16, False),
                     "options": {letter: sentence(rng, 6, False) for letter in "ABCDEFGHIJ"[: rng.randint(4, 10)]},
                     "correct_answer": "A", "table_details": [],
                     "image_details": [{"caption": f"Figure {k + 2}", "type": rng.choice(["MRI of the Brain", "Chest X-ray",
                                                                                         "H&E Stained Slide"]),
                                        "url": f"https://example.org/{i}-{k}.png"}]
                     if k == 1 or (k == 2 and i % 2 == 0) or (k == 3 and i % 6 == 0) else []}
                    for k in range(n_mcqs)
                ],
            }},
        }, ensure_ascii=False))
    lc_path = directory / "liveclin_2025h1.jsonl"
    lc_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    files.append(("LiveClin question sets", "liveclin", str(lc_path), None))
    files.append(("LiveClin taxonomy", "taxonomy", "liveclin", None))
    files.append(("LiveClin AI labels", "liveclin-labels", str(lc_path), None))
    return files


def recreate_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_env(url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "medreview.settings",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "benchmark-only-key"), "LOG_LEVEL": "WARNING"}


DATASETS = {"livemedbench": "LiveMedBench", "livemedbench-responses": "LiveMedBench",
            "livemedbench-grades": "LiveMedBench", "liveclin": "LiveClin", "liveclin-labels": "LiveClin"}


def run_command(fmt: str, path: str, model: str | None, env: dict[str, str], *, root: Path = ROOT,
                dataset: str | None = None) -> dict:
    """`manage.py import_cases` (or `load_taxonomy`) as a user types it; wall time, processor time and
    peak memory from outside. `root`: the checkout whose manage.py runs."""
    if fmt == "taxonomy":
        command = [sys.executable, str(root / "manage.py"), "load_taxonomy", path, "--json"]
    else:
        command = [sys.executable, str(root / "manage.py"), "import_cases", fmt, path, "--dataset",
                   dataset or DATASETS[fmt], "--release", Path(path).stem, "--json",
                   *(["--model", model] if model else [])]
    with tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=root, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        report = json.loads(out.read().strip().splitlines()[-1])
    created = report.get("created") or {"cases": 0, **report["counts"]}
    return {
        "status": report["status"], "wall": wall, "seconds": report["seconds"], "records": report.get("records", 0),
        # Every new case is two rows (Case and its first CaseRevision).
        "rows": sum(created.values()) + created["cases"],
        "bytes": (TAXONOMY if fmt == "taxonomy" else Path(path)).stat().st_size,
        "errors": [e["message"] for e in report["errors"][:3]], "peak_mb": usage.ru_maxrss / 1024,
        "cpu": usage.ru_utime + usage.ru_stime,
        "exit": os.waitstatus_to_exitcode(status),
    }


def _timed_start(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, processor) seconds of a command whose output is not read; a failure stops the benchmark
    with the command's error (a start-up that failed is no start-up time)."""
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a long traceback cannot block the wait
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            errors.seek(0)
            raise SystemExit(f"{' '.join(command[1:])} in {cwd} failed: {errors.read().decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def startup(root: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, processor) seconds of a bare `manage.py import_cases --help` in `root`."""
    return _timed_start([sys.executable, str(root / "manage.py"), "import_cases", "--help"], env, root)


# The third-party apps medreview's settings install, none of medreview's own: a project of these alone
# is the floor under any of its commands' start-up (Django's set-up, the models, the database driver).
FLOOR_SETTINGS = """
SECRET_KEY = "floor"
USE_TZ = True
INSTALLED_APPS = [
    "django.contrib.admin.apps.SimpleAdminConfig", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles", "rest_framework", "knox", "axes", "drf_spectacular",
    "drf_spectacular_sidecar", "django_tasks", "django_tasks_db",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "floor"}}
"""
# Django alone with the fewest apps a command that writes users' rows can run with (its models, the
# PostgreSQL driver): the floor under any Django command at all on this machine.
DJANGO_FLOOR_SETTINGS = """
SECRET_KEY = "floor"
USE_TZ = True
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "floor"}}
"""


def compile_checkout(root: Path) -> None:
    """Bytecode for every module of a checkout (its .venv, .git and node_modules left out)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-x", r"/(\.venv|\.git|node_modules)(/|$)", str(root)],
                   check=True, stdout=subprocess.DEVNULL)


def floor_startup(directory: Path, *, django_alone: bool = False) -> tuple[float, float]:
    """(wall, processor) seconds of `migrate --help` in a project of the third-party apps alone, or
    (`django_alone`) of Django's auth and contenttypes alone."""
    module = "django_floor_settings" if django_alone else "floor_settings"
    (directory / f"{module}.py").write_text(DJANGO_FLOOR_SETTINGS if django_alone else FLOOR_SETTINGS)
    env = {**os.environ, "PYTHONPATH": str(directory), "DJANGO_SETTINGS_MODULE": module}
    code = "from django.core.management import execute_from_command_line; execute_from_command_line(['manage.py', 'migrate', '--help'])"
    return _timed_start([sys.executable, "-c", code], env, directory)


def compare(directory: Path, env: dict[str, str], before: Path, repeat: int) -> None:
    """The LiveMedBench cases file and the bare start-up, this checkout beside `before`, runs
    alternated (each import into a dataset of its own, so none is "unchanged"); medians."""
    path = str(directory / "merged_data_rubric.json")
    runs: dict[str, list[dict]] = {"before": [], "now": []}
    starts: dict[str, list[tuple[float, float]]] = {"before": [], "now": [], "floor": [], "django": []}
    for root in (before, ROOT):
        compile_checkout(root)
    for i in range(repeat):
        for name, root in (("before", before), ("now", ROOT)) if i % 2 == 0 else (("now", ROOT), ("before", before)):
            starts[name].append(startup(root, env))
            runs[name].append(run_command("livemedbench", path, None, env, root=root, dataset=f"Compare-{name}-{i}"))
        starts["floor"].append(floor_startup(directory))
        starts["django"].append(floor_startup(directory, django_alone=True))
    print(f"\nLiveMedBench cases file ({LMB_CASES} cases, {LMB_CRITERIA} criteria), median of {repeat} alternated runs; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'checkout':<10} {'CLI wall s':>10} {'CLI CPU s':>10} {'import s':>9} {'peak MB':>8} "
          f"{'--help wall s':>14} {'--help CPU s':>13}")
    for name, root in (("before", before), ("now", ROOT)):
        r = runs[name]
        print(f"{name:<10} {statistics.median(x['wall'] for x in r):>10.2f} {statistics.median(x['cpu'] for x in r):>10.2f} "
              f"{statistics.median(x['seconds'] for x in r):>9.2f} {statistics.median(x['peak_mb'] for x in r):>8.0f} "
              f"{statistics.median(w for w, _ in starts[name]):>14.2f} {statistics.median(c for _, c in starts[name]):>13.2f}"
              f"  ({root})")
    print(f"{'floor':<10} {'':>10} {'':>10} {'':>9} {'':>8} {statistics.median(w for w, _ in starts['floor']):>14.2f} "
          f"{statistics.median(c for _, c in starts['floor']):>13.2f}  (Django and the third-party apps alone: "
          "`migrate --help`)")
    print(f"{'Django':<10} {'':>10} {'':>10} {'':>9} {'':>8} {statistics.median(w for w, _ in starts['django']):>14.2f} "
          f"{statistics.median(c for _, c in starts['django']):>13.2f}  (Django's auth and contenttypes alone, "
          "PostgreSQL: `migrate --help`)")
    print("both checkouts compiled to bytecode first (python -m compileall)")
    print("goals (issue 26): CLI end to end < 1.2 s, start-up < 0.4 s, on a quiet 2-core machine")


def growth(directory: Path, env: dict[str, str], scales: list[float]) -> None:
    """The LiveMedBench cases file at several sizes: time, memory and how they grow (log-log slope)."""
    rows = []
    for scale in scales:
        n_cases, n_criteria = round(LMB_CASES * scale), round(LMB_CRITERIA * scale)
        path = directory / f"livemedbench_x{scale:g}.json"
        # Written by a process of its own: a child's peak memory (ru_maxrss) starts at its parent's at
        # fork, so this process must not grow by holding a 10x file.
        subprocess.run([sys.executable, __file__, "--write-livemedbench", str(path), str(n_cases), str(n_criteria)],
                       check=True)
        r = run_command("livemedbench", str(path), None, env, dataset=f"Growth-x{scale:g}")
        path.unlink()
        rows.append((scale, n_cases + n_criteria, r))
    print(f"\nLiveMedBench cases file at {len(scales)} sizes (this checkout); load average {os.getloadavg()[0]:.1f}")
    print(f"{'size':>6} {'records':>8} {'rows':>8} {'CLI wall s':>10} {'CLI CPU s':>10} {'import s':>9} {'peak MB':>8}")
    for scale, _, r in rows:
        print(f"{scale:>5g}x {r['records']:>8} {r['rows']:>8} {r['wall']:>10.2f} {r['cpu']:>10.2f} {r['seconds']:>9.2f} "
              f"{r['peak_mb']:>8.0f}")
    xs = [float(r["rows"]) for _, _, r in rows]
    figures = (("CLI wall", "wall"), ("CLI CPU", "cpu"), ("import", "seconds"), ("peak memory", "peak_mb"))
    print("log-log slope against rows: " + ", ".join(
        f"{name} {slope_text(xs, [r[key] for _, _, r in rows])}" for name, key in figures))


def main() -> int:
    if sys.argv[1:2] == ["--write-livemedbench"]:  # growth(): PATH CASES CRITERIA
        path, n_cases, n_criteria = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        Path(path).write_text(json.dumps(livemedbench_cases(random.Random(7), n_cases, n_criteria), ensure_ascii=False),
                              encoding="utf-8")
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--keep", type=Path, help="Write the generated files here and keep them")
    parser.add_argument("--before", type=Path, help=(
        "Another checkout of medreview (same migrations): its CLI time for the LiveMedBench cases file and "
        "its start-up printed beside this one's, runs alternated"))
    parser.add_argument("--repeat", type=int, default=3, help="runs per checkout with --before (median)")
    parser.add_argument("--scales", default="1,3,10", help="sizes of the growth run, times the LiveMedBench file")
    parser.add_argument("--only", choices=["all", "compare", "growth", "files"], default="all")
    args = parser.parse_args()

    if not args.database_url.startswith("postgres"):
        parser.error("the benchmark runs on PostgreSQL (give --database-url postgres://...)")
    env = django_env(args.database_url)
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        files = generate(directory)
        print(f"generated {len(files)} files in {time.perf_counter() - started:.1f} s under {directory}")
        recreate_database(args.database_url)
        subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], check=True, env=env, cwd=ROOT)
        if args.before and args.only in ("all", "compare"):
            compare(directory, env, args.before.resolve(), args.repeat)
        if args.only in ("all", "growth"):
            growth(directory, env, [float(x) for x in args.scales.split(",") if x.strip()])
        if args.only not in ("all", "files"):
            return 0
        print(f"\n{'file':<34} {'MB':>6} {'records':>8} {'rows':>7} {'command s':>9} {'import s':>8} "
              f"{'rows/s':>8} {'peak MB':>8}  status")
        worst_seconds = worst_memory = 0.0
        for label, fmt, path, model in files:
            r = run_command(fmt, path, model, env)
            worst_seconds, worst_memory = max(worst_seconds, r["wall"]), max(worst_memory, r["peak_mb"])
            print(f"{label:<34} {r['bytes'] / 1e6:>6.1f} {r['records']:>8} {r['rows']:>7} {r['wall']:>9.2f} "
                  f"{r['seconds']:>8.2f} {r['rows'] / r['wall']:>8.0f} {r['peak_mb']:>8.0f}  {r['status']}"
                  + (f" {r['errors']}" if r["errors"] else ""))
        verdict = "meets" if worst_seconds <= 10 and worst_memory < 500 else "MISSES"
        print(f"slowest file {worst_seconds:.2f} s, highest peak {worst_memory:.0f} MB: {verdict} the target "
              "(<= 10 s and < 500 MB per file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
