#!/usr/bin/env python3
"""Submit -> next item, as a physician meets it: Chromium rating LiveMedBench cases by keyboard and by
mouse against medreview deployed as the README deploys it, and where the time goes.

    .venv/bin/python benchmarks/rating_loop.py [--database-url postgres://.../medreview_rating_loop]
        [--items 10] [--rounds 2] [--history 100,300,1000] [--think 0.25] [--workers 4] [--threads 4]
        [--port 0] [--profile] [--json FILE] [--headed]

The set-up (docs/review-pages.md, "The rating loop benchmark"):
- PostgreSQL: the database of --database-url, dropped and recreated (default
  medreview_rating_loop on 127.0.0.1), migrated, `load_demo`, then history + rounds x items + 4 (at least 24)
  generated LiveMedBench cases like the demo's longest case with six criteria (benchmarks/rating_loop_items.py:
  English cases with the Chinese translation of every field, which bilingual raters read side by side,
  and Chinese cases), in one running study: narrative quality plus criterion validity, so 7 fields per
  item, the demo's guidelines, two raters per item; with --history N each rater has already rated N
  of its items (through the services), as a physician well into a study has. --history takes a list
  (default 100,300,1000: 1x, 3x and 10x): the whole benchmark runs once per size, on a database
  set up afresh, and ends with how each figure grows with the items rated before (`growth.py`).
- gunicorn gthread, --workers 4 x --threads 4, DEBUG=0, CONN_MAX_AGE=600, `collectstatic` with
  whitenoise serving the files, SERVER_TIMING=1 for the Server-Timing header
  (medreview/server_timing.py); the application is benchmarks/rating_loop_probe.py, which is
  medreview.wsgi with spans around the submit, the claim, the page's context and the render.
- Debian's Chromium (/usr/bin/chromium) at 1440 x 900 through Playwright, one signed-in rater per
  input: the keyboard rater presses each field's shortcut and Enter, the mouse rater clicks one choice
  per field and Submit; --think seconds between actions. Passes alternate, --items each: keyboard
  then mouse in odd rounds, mouse then keyboard in even ones (both raters meet the items in the same
  order, and the second to submit an item also completes it, so each input is first on half of them). Before measuring, every gunicorn thread is warmed up by concurrent page
  loads and one item per input is rated uncounted.

What is timed (benchmarks/rating_loop_page.js, injected into the page; the page's code is not
touched): from the submit's input event (the Enter keydown or the pointerdown on Submit, its
event.timeStamp) until the first frame painted after the next item is usable: another case on
screen, its first field focused and enabled, its text rendered inside the viewport. The stages of
that time: the page's submit handler, the request (the server's Server-Timing spans, its database
queries and commits, the processor time of the request's thread and so the time it waited; the rest
being network and gunicorn), reading the body, DOMParser, the swap, mounting the new item until its first
field has focus, and the frame that paints it. Prints p50 / p95 / max per input and the breakdown
(p50, p95 and mean of each stage; the means add up to the total's mean), and the page's main-thread
script, style and layout time over the same window (DevTools Performance metrics). --profile also profiles
every submit-and-next request in the server (cProfile; slower, so its timings are not comparable)
and prints the functions that cost most. At the end the benchmark checks in the database that
every submit it made is stored, with a label on every field.

Last, over the --history sizes: p50 and p95 by keyboard and by mouse, the peak memory of the largest
gunicorn worker, and the log-log slope of each (`growth.py`; 0 is flat: a rater's past items cost
nothing on the next submit). A size of 0 is measured but left out of the slope.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(HERE)]

from growth import Growth, child_pids, largest_peak_rss_mb  # noqa: E402
from rating_loop_report import INPUTS, pct, print_profile, print_report  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/medreview_rating_loop"
PASSWORD = "bench-pass-2026"
RATERS = {"keyboard": "bench_keyboard", "mouse": "bench_mouse"}
STUDY = "Bench: rating loop"
PAGE_JS = (HERE / "rating_loop_page.js").read_text(encoding="utf-8")
RUN_DONE = "(n) => { const r = window.__ratingLoop.runs[n]; return !!r && ((r.painted && !!r.resource) || " \
           "(!!r.resource && r.resource.status !== null && r.resource.status !== 200)); }"


def _recreate_postgres(url: str) -> None:
    import psycopg
    from dj_database_url import parse

    cfg = parse(url)
    with psycopg.connect(host=cfg["HOST"] or "127.0.0.1", port=cfg["PORT"] or 5432, user=cfg["USER"] or "postgres",
                         password=cfg["PASSWORD"] or None, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{cfg["NAME"]}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{cfg["NAME"]}"')


def _seed(cases: int, history: int) -> None:
    """The generated cases, the study over them and its two benchmark raters (bilingual physicians),
    each with `history` items already rated through the services, like a physician well into a study."""
    import django

    django.setup()
    import rating_loop_items
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from annotation.catalogue import CRITERION_VALIDITY, NARRATIVE_QUALITY
    from annotation.fields import item_fields
    from annotation.models import StudyMember
    from annotation.rating.services.queue import assignment_claim_next
    from annotation.rating.services.ratings import rating_submit
    from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
    from demo.review import GUIDELINES

    rating_loop_items.import_cases(cases)
    User = get_user_model()
    admin = User.objects.get(username="admin1")
    raters = []
    for username in RATERS.values():
        user = User.objects.create_user(username=username, password=PASSWORD)
        Profile.objects.create(user=user, role="physician", specialties=["Internal Medicine"], languages=["en", "zh"],
                               pseudonym=f"R-{username}")
        raters.append(user)
    study = study_create(
        name=STUDY, created_by=admin, task_slugs=[NARRATIVE_QUALITY.slug, CRITERION_VALIDITY.slug],
        selection=ItemSelection(kind="case", dataset=rating_loop_items.DATASET,
                                         release_label=rating_loop_items.RELEASE),
        raters_per_item=len(raters), guidelines=GUIDELINES, seed=27,
    )
    study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
    study_start(study=study, actor=admin)
    for done in range(history):
        for rater in raters:
            assignment = assignment_claim_next(study=study, rater=rater)
            labels = {f.id: {"label": f.values[0], "comment": ""} for f in item_fields(assignment.item)}
            rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=60)
        if (done + 1) % 100 == 0:
            print(f"  history: {done + 1} of {history} items rated by each rater", flush=True)
    # A live database has planner statistics (autovacuum); a freshly seeded one does not yet. Without
    # them the rater's list of done items and last submission were planned as nested loops over the
    # study's items: at 1,000 items rated before, the page's data took 186 ms of the 259 from submit
    # to the next item (p50 by keyboard); with them, 19 of 88.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _serve(args: argparse.Namespace, tmp: Path) -> tuple[subprocess.Popen, str]:
    _recreate_postgres(args.database_url)
    env = {**os.environ, "DATABASE_URL": args.database_url, "SECRET_KEY": "rating-loop-benchmark-key", "DEBUG": "0",
           "ALLOWED_HOSTS": "127.0.0.1,localhost", "CONN_MAX_AGE": "600", "SERVER_TIMING": "1",
           "STATIC_ROOT": str(tmp / "static"), "MEDIA_ROOT": str(tmp / "media"),
           "DJANGO_SETTINGS_MODULE": "medreview.settings", "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)]),
           "LOG_LEVEL": "WARNING",
           "GRADER_ALLOWED_HOSTS": "127.0.0.1,localhost",  # load_demo saves demo graders on the fake endpoint
           "SECURE_COOKIES": "0"}  # plain HTTP on the loopback: no HTTPS redirect, no Secure-only cookies
    if args.profile:
        (tmp / "profiles").mkdir()
        env["RATING_LOOP_PROFILE"] = str(tmp / "profiles")
    python = sys.executable
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"], ["load_demo"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE",
                                           "STATIC_ROOT", "MEDIA_ROOT", "GRADER_ALLOWED_HOSTS", "LOG_LEVEL")})
    _seed(max(24, args.history + args.rounds * args.items + 4), args.history)  # both raters rate the same items
    port = args.port or _free_port()
    gunicorn = [str(Path(python).parent / "gunicorn"), "rating_loop_probe:application", "-k", "gthread",
                "-w", str(args.workers), "--threads", str(args.threads), "-b", f"127.0.0.1:{port}",
                "--log-level", "warning"]
    server = subprocess.Popen(gunicorn, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):  # our own local server
                return server, base
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not come up")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _warm_up(base: str, page, concurrency: int) -> None:
    """Every gunicorn thread serves a few rating pages first (templates compiled, connection open),
    as in a server that has been running; the pages are GETs of the rater's current item."""
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    url = page.url

    def load() -> None:
        for _ in range(4):
            request = urllib.request.Request(url, headers={"Cookie": cookie})
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()

    threads = [threading.Thread(target=load) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


FIELDS_JS = """() => [...document.querySelectorAll('#rating-form fieldset.field')].map(f => ({
  explain: !!f.dataset.requiresExplanation,
  choices: [...f.querySelectorAll('input[type=radio]')].map(r => ({key: r.dataset.shortcut, approves: !!r.dataset.approves}))
}))"""


def _choose(spec: dict, rng: random.Random) -> int:
    # A field that needs an explanation for a "no" gets an approving label: the loop measures submitting.
    options = [i for i, c in enumerate(spec["choices"]) if c["approves"] or not spec["explain"]]
    return rng.choice(options or list(range(len(spec["choices"]))))


MAIN_THREAD = {"script": "ScriptDuration", "style": "RecalcStyleDuration", "layout": "LayoutDuration"}


def _main_thread(cdp) -> dict[str, float]:
    """The renderer's cumulative main-thread seconds (Chrome DevTools Protocol, Performance domain)."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {key: metrics[name] for key, name in MAIN_THREAD.items()}


def _rate_one(page, cdp, mode: str, rng: random.Random, think: float) -> dict:
    """Label every field of the item on screen, submit, and return the page's measurement."""
    fields = page.evaluate(FIELDS_JS)
    missed = 0
    for index, spec in enumerate(fields):
        pick = _choose(spec, rng)
        if mode == "keyboard":
            page.keyboard.press(spec["choices"][pick]["key"])
            if spec["explain"] and index < len(fields) - 1:
                page.keyboard.press("j")
        else:
            page.locator(f"#field-{index} label.choice").nth(pick).click()
        if not page.locator(f"#field-{index} input[type=radio]").nth(pick).is_checked():
            missed += 1  # a key or click that did not pick what it aimed at
        page.wait_for_timeout(think * 1000)
    n = page.evaluate("() => window.__ratingLoop.runs.length")
    old = page.evaluate("() => window.medreviewTiming.items.length")
    if mode == "mouse":  # Playwright's own checks before a click, out of the measured window
        submit = page.locator("#submit-rating")
        submit.scroll_into_view_if_needed()
        box = submit.bounding_box()
    before = _main_thread(cdp)
    if mode == "keyboard":
        page.keyboard.press("Enter")
    else:
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(RUN_DONE, arg=n, polling=100, timeout=30_000)
    after = _main_thread(cdp)
    # Functions, not expressions: Playwright evaluates an expression with eval, which the CSP forbids.
    page.wait_for_function("old => window.medreviewTiming.items.length > old", arg=old, polling=100, timeout=30_000)
    run = page.evaluate("n => window.__ratingLoop.runs[n]", n)
    if run["resource"]["status"] not in (None, 200) or run["input"] != mode:
        raise SystemExit(f"{mode}: the submit answered {run['resource']['status']} (input seen: {run['input']})")
    run["main_thread"] = {key: (after[key] - before[key]) * 1000 for key in MAIN_THREAD}
    run["fields"] = len(fields)
    run["missed"] = missed
    run["rating_js_ms"] = page.evaluate("() => window.medreviewTiming.items.at(-1).painted_ms")
    return run


def _open_queue(browser, base: str, username: str):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
    context.add_init_script(PAGE_JS)
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.press("#id_password", "Enter")
    page.goto(f"{base}/review/")
    with page.expect_navigation():
        page.locator("article.study-card", has_text=STUDY).locator("button.next-item").click()
    page.wait_for_selector("#rating-form")
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    return page, cdp


def _drive(base: str, args: argparse.Namespace) -> tuple[list[dict], int]:
    from playwright.sync_api import sync_playwright

    rng = random.Random(27)
    runs: list[dict] = []
    submits = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=not args.headed)
        pages = {mode: _open_queue(browser, base, username) for mode, username in RATERS.items()}
        _warm_up(base, pages["keyboard"][0], args.workers * args.threads)
        for mode, (page, cdp) in pages.items():  # one uncounted item per input: first use in the page
            page.bring_to_front()
            _rate_one(page, cdp, mode, rng, args.think)
            submits += 1
        for round_ in range(args.rounds):
            # Both raters get the items in the same order, and the second to submit an item also
            # completes it (the inspection policy): the inputs take turns at being first.
            order = list(pages.items()) if round_ % 2 == 0 else list(pages.items())[::-1]
            for mode, (page, cdp) in order:
                page.bring_to_front()
                for _ in range(args.items):
                    run = _rate_one(page, cdp, mode, rng, args.think)
                    run["round"] = round_ + 1
                    runs.append(run)
                    submits += 1
        for mode, (page, _cdp) in pages.items():
            for run in runs:
                if run["input"] == mode:
                    run["layout_shift"] = page.evaluate("() => window.medreviewLayoutShift.total")  # whole pass
        browser.close()
    return runs, submits


def _history_sizes(text: str) -> list[int]:
    """"100,300,1000" -> [100, 300, 1000]; refuses what is not a whole number of items, 0 or more."""
    sizes = []
    for part in text.split(","):
        if not part.strip().isdigit():
            raise argparse.ArgumentTypeError(f"{part!r} is not a number of items, 0 or more (e.g. 100,300,1000)")
        sizes.append(int(part))
    return sizes


def _run_size(args: argparse.Namespace, growth: Growth) -> None:
    """The whole benchmark at one --history size, on a database set up afresh."""
    from django.db import connections

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="medreview-rating-loop-") as tmp:
        print(f"\n=== {args.history} items rated before by each rater", flush=True)
        print("migrating, loading the demo data and the generated cases, starting gunicorn ...", flush=True)
        server, base = _serve(args, Path(tmp))
        try:
            runs, submits = _drive(base, args)
            peak = largest_peak_rss_mb(child_pids(server.pid))  # the largest gunicorn worker
        finally:
            server.terminate()
            server.wait(timeout=30)
        stored = _check_stored(submits + len(RATERS) * args.history)
        connections.close_all()  # the next size drops and recreates the database
        if args.json:
            path = args.json if len(args.sizes) == 1 else args.json.with_suffix(f".{args.history}{args.json.suffix}")
            path.write_text(json.dumps(runs, indent=1))
        print_report(runs, args, load=(load_before, os.getloadavg()))
        print(stored)
        if args.profile:
            print_profile(Path(tmp) / "profiles")
    for mode in INPUTS:
        totals = [r["marks"]["painted"] / 1000 for r in runs if r["input"] == mode]
        if totals:
            growth.add(f"{mode}: submit -> next item, p50", args.history, pct(totals, .5), peak)
            growth.add(f"{mode}: submit -> next item, p95", args.history, pct(totals, .95), peak)


def _check_stored(submits: int) -> str:
    """Every submit the benchmark made is a submitted assignment with a label on every field."""
    from annotation.models import Assignment, Rating, Study

    study = Study.objects.get(name=STUDY)
    done = Assignment.objects.filter(item__study=study, state=Assignment.State.SUBMITTED,
                                     rater__username__in=RATERS.values())
    fields = 1 + study.items.first().revision.criteria.count()
    labelled = Rating.objects.filter(assignment__in=done).exclude(label="").count()
    if done.count() != submits or labelled != submits * fields:
        raise SystemExit(f"stored: {done.count()} submitted assignments for {submits} submits, "
                         f"{labelled} labels for {submits * fields}")
    return f"stored: {done.count()} submitted assignments for {submits} submits, {labelled} labels ({fields} per item)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL, help="postgres://... (dropped and recreated)")
    parser.add_argument("--items", type=int, default=10, help="items per pass (default 10)")
    parser.add_argument("--rounds", type=int, default=2, help="keyboard pass + mouse pass, this many times (default 2)")
    parser.add_argument("--history", type=_history_sizes, default=[100, 300, 1000],
                        help="items each rater has already rated in the study before the loop, one run per size "
                             "(default 100,300,1000)")
    parser.add_argument("--think", type=float, default=0.25, help="seconds between a rater's actions (default 0.25)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="cProfile every submit-and-next request (slower)")
    parser.add_argument("--json", type=Path, help="write every run's measurements here (with several --history "
                                                  "sizes, one file each: runs.json -> runs.100.json, ...)")
    parser.add_argument("--headed", action="store_true")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)")
    if not args.database_url.startswith("postgres"):
        raise SystemExit("--database-url must be a PostgreSQL database (it is dropped and recreated)")
    args.sizes = args.history
    growth = Growth("Submit -> next item by the items each rater rated before (peak MB: the largest worker)",
                    unit=" items")
    for history in args.sizes:
        args.history = history
        _run_size(args, growth)
    if len(args.sizes) > 1:
        growth.print()


if __name__ == "__main__":
    main()
