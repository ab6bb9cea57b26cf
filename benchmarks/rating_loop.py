#!/usr/bin/env python3
"""The rating loop as a physician drives it: Chromium through N items of every task type, by keyboard and by mouse.

    .venv/bin/python benchmarks/rating_loop.py [--items 8] [--database-url postgres://...] [--port 8793]
        [--workers 2] [--threads 4] [--headed]

Starts its own server: a throwaway SQLite database in a temporary directory (or, with
--database-url postgres://..., that PostgreSQL database, dropped and recreated), migrated and loaded
with the demo data (`load_demo`: every task type), plus one benchmark study per demo study with
room for two benchmark raters (one rates by keyboard only, one by mouse only). gunicorn (gthread)
serves it with DEBUG off and whitenoise serving the collected static files (into the temporary
directory), on 127.0.0.1.

For each task type and input, up to N items are rated through the real page (the keyboard rater
presses each field's shortcut, `j` past a field that may need an explanation, `Enter`; the mouse
rater clicks one choice per field, then Submit). Prints, per task type and input: items, fields per
item, keys or clicks per item, clicks that did not take (a click after which the clicked choice is
not the field's label), pointer scrolls per item (a target not fully on screen when its turn came),
the total layout shift recorded by the page (`layout-shift` entries), and submit-to-next p50 / p95:
from the submit key or click to the next item swapped in and painted (static/js/rating.js logs it in
window.medreviewTiming). Never `playwright install`: Debian's /usr/bin/chromium is used.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
PASSWORD = "bench-pass-2026"
RATERS = {"keyboard": "bench_keyboard", "mouse": "bench_mouse"}
SETTINGS = """from medreview.settings import *  # noqa: F401,F403
STATIC_ROOT = {static_root!r}
"""


@dataclass
class Result:
    study: str
    mode: str
    items: int = 0
    fields: int = 0
    actions: int = 0  # keys (keyboard) or clicks (mouse), the submit included
    missed: int = 0
    scrolls: int = 0
    submit_ms: list[float] = field(default_factory=list)
    response_ms: list[float] = field(default_factory=list)  # of which: until the server's answer arrived


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _recreate_postgres(url: str) -> None:
    import psycopg
    from dj_database_url import parse

    cfg = parse(url)
    with psycopg.connect(host=cfg["HOST"] or "127.0.0.1", port=cfg["PORT"] or 5432, user=cfg["USER"] or "postgres",
                         password=cfg["PASSWORD"] or None, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{cfg["NAME"]}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{cfg["NAME"]}"')


def _seed() -> list[str]:
    """Benchmark studies mirroring the demo ones (same tasks, same items), two benchmark raters in each."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from annotation.models import Study, StudyMember
    from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start

    User = get_user_model()
    admin = User.objects.get(username="admin1")
    raters = []
    for username in RATERS.values():
        user = User.objects.create_user(username=username, password=PASSWORD)
        Profile.objects.create(user=user, role="physician", specialties=["Internal Medicine"], languages=["en", "zh"],
                               pseudonym=f"R-{username}")
        raters.append(user)
    names = []
    for demo in Study.objects.filter(name__startswith="Demo: ").order_by("pk"):
        study = study_create(
            name=demo.name.replace("Demo: ", "Bench: "), created_by=admin,
            task_slugs=list(demo.tasks.values_list("slug", flat=True)),
            selection=ItemSelection(**{k: v for k, v in demo.selection.items()
                                                if k in {"kind", "dataset"}}),
            raters_per_item=len(raters), seed=16,
        )
        study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
        study_start(study=study, actor=admin)
        names.append(study.name)
    return names


def _serve(args: argparse.Namespace, tmp: Path) -> tuple[subprocess.Popen, str, list[str]]:
    (tmp / "bench_settings.py").write_text(SETTINGS.format(static_root=str(tmp / "static")))
    url = args.database_url or f"sqlite:///{tmp}/bench.sqlite3"
    if url.startswith("postgres"):
        _recreate_postgres(url)
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "rating-loop-benchmark-key", "DEBUG": "0",
           "ALLOWED_HOSTS": "127.0.0.1,localhost", "CONN_MAX_AGE": "600", "TASKS_BACKEND": "immediate",
           "MEDIA_ROOT": str(tmp / "media"), "DJANGO_SETTINGS_MODULE": "bench_settings",
           "PYTHONPATH": os.pathsep.join([str(tmp), str(ROOT)]), "LOG_LEVEL": "WARNING",
           "SECURE_COOKIES": "0"}  # plain HTTP on the loopback: no HTTPS redirect, no Secure-only cookies
    python = sys.executable
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE",
                                           "TASKS_BACKEND", "MEDIA_ROOT")})
    sys.path.insert(0, str(tmp))
    studies = _seed()
    port = args.port or _free_port()
    gunicorn = [str(Path(python).parent / "gunicorn"), "medreview.wsgi:application", "-k", "gthread",
                "-w", str(args.workers), "--threads", str(args.threads), "-b", f"127.0.0.1:{port}",
                "--log-level", "warning"]
    server = subprocess.Popen(gunicorn, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):  # noqa: S310 - our own local server
                return server, base, studies
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not come up")


FIELDS_JS = """() => [...document.querySelectorAll('#rating-form fieldset.field')].map(f => ({
  explain: !!f.dataset.requiresExplanation,
  choices: [...f.querySelectorAll('input[type=radio]')].map(r => ({value: r.value, key: r.dataset.shortcut,
                                                                     approves: !!r.dataset.approves}))
}))"""
IN_VIEW_JS = """el => { const r = el.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }"""


def _choose(field: dict, rng: random.Random) -> int:
    # A field that needs an explanation for a "no" gets an approving label: the loop measures picking.
    options = [i for i, c in enumerate(field["choices"]) if c["approves"] or not field["explain"]]
    return rng.choice(options or list(range(len(field["choices"]))))


def _rate_one(page, mode: str, rng: random.Random, result: Result) -> bool:
    fields = page.evaluate(FIELDS_JS)
    before = page.evaluate("window.medreviewTiming.items.length")
    for index, spec in enumerate(fields):
        pick = _choose(spec, rng)
        if mode == "keyboard":
            page.keyboard.press(spec["choices"][pick]["key"])
            result.actions += 1
            if spec["explain"] and index < len(fields) - 1:
                page.keyboard.press("j")
                result.actions += 1
        else:
            choice = page.locator(f"#field-{index} label.choice").nth(pick)
            if not choice.evaluate(IN_VIEW_JS):
                result.scrolls += 1
            choice.click()
            result.actions += 1
            if not page.locator(f"#field-{index} input[type=radio]").nth(pick).is_checked():
                result.missed += 1
    if mode == "keyboard":
        page.keyboard.press("Enter")
    else:
        submit = page.locator("#submit-rating")
        if not submit.evaluate(IN_VIEW_JS):
            result.scrolls += 1
        submit.click()
    result.actions += 1
    page.wait_for_function(f"window.medreviewTiming.items.length > {before}")
    timing = page.evaluate("window.medreviewTiming.items")[-1]
    if timing["status"] != 200:
        raise SystemExit(f"{result.study} ({mode}): submit answered {timing['status']}")
    result.items += 1
    result.fields += len(fields)
    result.submit_ms.append(timing["painted_ms"])
    result.response_ms.append(timing["response_ms"])
    return page.locator("#rating-form").count() > 0


def _drive(base: str, studies: list[str], n_items: int, headed: bool) -> tuple[list[Result], dict[str, float]]:
    from playwright.sync_api import sync_playwright

    results: list[Result] = []
    shifts: dict[str, float] = {}
    rng = random.Random(16)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=not headed)
        for mode, username in RATERS.items():
            context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
            page = context.new_page()
            page.goto(f"{base}/accounts/login/")
            page.fill("#id_username", username)
            page.fill("#id_password", PASSWORD)
            with page.expect_navigation():
                page.press("#id_password", "Enter")
            shift = 0.0
            for name in studies:
                page.goto(f"{base}/review/")
                with page.expect_navigation():
                    page.locator("article.study-card", has_text=name).locator("button.next-item").click()
                result = Result(study=name.replace("Bench: ", ""), mode=mode)
                results.append(result)
                # One warm-up item per study and input is not counted (first-use caches on both sides).
                more = page.locator("#rating-form").count() > 0 and _rate_one(page, mode, rng, Result("", mode))
                while more and result.items < n_items:
                    more = _rate_one(page, mode, rng, result)
                shift += page.evaluate("window.medreviewLayoutShift ? window.medreviewLayoutShift.total : NaN")
            shifts[mode] = shift
            context.close()
        browser.close()
    return results, shifts


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=8, help="items per task type and input (after one warm-up)")
    parser.add_argument("--database-url", help="postgres://... (dropped and recreated); default: throwaway SQLite")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--headed", action="store_true")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="medreview-rating-loop-") as tmp:
        print("migrating, loading the demo data, starting gunicorn ...", flush=True)
        server, base, studies = _serve(args, Path(tmp))
        try:
            results, shifts = _drive(base, studies, args.items, args.headed)
        finally:
            server.terminate()
            server.wait(timeout=20)
    print(f"\n{'task type':<32} {'input':<9} {'items':>5} {'fields':>6} {'keys/clicks':>11} {'not taken':>9} "
          f"{'scrolls':>7} {'submit->next p50 / p95 ms':>26}")
    every, answered = [], []
    for r in results:
        every += r.submit_ms
        answered += r.response_ms
        per_item = r.actions / r.items if r.items else float("nan")
        fields = r.fields / r.items if r.items else float("nan")
        print(f"{r.study:<32} {r.mode:<9} {r.items:>5} {fields:>6.1f} {per_item:>11.1f} {r.missed:>9} "
              f"{r.scrolls / max(r.items, 1):>7.1f} {_pct(r.submit_ms, .5):>13.0f} / {_pct(r.submit_ms, .95):<10.0f}")
    print(f"\nlayout shift total: keyboard {shifts.get('keyboard', 0):.4f}, mouse {shifts.get('mouse', 0):.4f}")
    print(f"submit -> next item painted, all items: n={len(every)} p50 {_pct(every, .5):.0f} ms, "
          f"p95 {_pct(every, .95):.0f} ms, max {max(every, default=float('nan')):.0f} ms"
          f" (mean {statistics.fmean(every) if every else float('nan'):.0f} ms); of which the server's answer: "
          f"p50 {_pct(answered, .5):.0f} ms, p95 {_pct(answered, .95):.0f} ms")
    print("clicks per item = fields + 1 (submit) when every click takes; keys per item = fields + 1, "
          "plus one j after each field that may need an explanation")


if __name__ == "__main__":
    main()
