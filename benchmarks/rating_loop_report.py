"""What benchmarks/rating_loop.py prints: submit -> next item per input, and where the time goes."""

from __future__ import annotations

import argparse
import io
import pstats
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ("keyboard", "mouse")


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (p95 of 20 values is the 19th smallest)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def server(run: dict) -> dict[str, tuple[float, int, int]]:
    """The Server-Timing metrics of a run's request: {name: (ms, queries, calls)}."""
    metrics = {}
    for metric in run["resource"]["server"]:
        match = re.match(r"(\d+) queries(?: in (\d+) calls)?", metric["desc"] or "")
        queries, calls = (int(match.group(1)), int(match.group(2) or 1)) if match else (0, 1)
        metrics[metric["name"]] = (metric["dur"], queries, calls)
    return metrics


def _span(name: str) -> Callable[[dict], float]:
    return lambda run: server(run).get(name, (0.0, 0, 0))[0]


def _rest_of_view(run: dict) -> float:
    spans = server(run)
    inside = sum(spans.get(name, (0.0, 0, 0))[0] for name in ("submit", "claim", "context", "render"))
    return spans["view"][0] - inside


def _mark(run: dict, name: str) -> float:
    return run["marks"][name]


# (label, indent, ms of the stage in one run); the unindented stages add up to the total.
STAGES: list[tuple[str, int, Callable[[dict], float]]] = [
    ("submit handler (input -> request sent)", 0, lambda r: r["resource"]["start"]),
    ("request (sent -> answer complete)", 0, lambda r: r["resource"]["end"] - r["resource"]["start"]),
    ("server (Server-Timing total)", 1, _span("total")),
    ("middleware (total - view)", 2, lambda r: _span("total")(r) - _span("view")(r)),
    ("submit: draft saved, submission recorded", 2, _span("submit")),
    ("claim: next item leased", 2, _span("claim")),
    ("audit chain sealed in the request (0: in the background since issue 27)", 3, _span("audit")),
    ("context: the page's data", 2, _span("context")),
    ("render: templates", 2, _span("render")),
    ("rest of the view", 2, _rest_of_view),
    ("database: queries (inside all of the above)", 2, _span("db")),
    ("database: commits (inside all of the above)", 2, _span("commit")),
    ("processor time of the request's thread", 2, _span("cpu")),
    ("waiting: database, locks, a free processor", 2, lambda r: _span("total")(r) - _span("cpu")(r)),
    ("network and gunicorn (request - server)", 1,
     lambda r: r["resource"]["end"] - r["resource"]["start"] - _span("total")(r)),
    ("body read (answer -> parse)", 0, lambda r: _mark(r, "parse_start") - r["resource"]["end"]),
    ("parse (DOMParser)", 0, lambda r: _mark(r, "parse_end") - _mark(r, "parse_start")),
    ("swap (#rate-page replaced)", 0, lambda r: _mark(r, "swap") - _mark(r, "parse_end")),
    ("mount (swap -> first field focused)", 0, lambda r: _mark(r, "focus") - _mark(r, "swap")),
    ("focused -> usable (rest of the swap)", 0, lambda r: _mark(r, "usable") - _mark(r, "focus")),
    ("paint (usable -> its frame painted)", 0, lambda r: _mark(r, "painted") - _mark(r, "usable")),
    ("total: input -> next item usable, painted", 0, lambda r: _mark(r, "painted")),
]
QUERY_SPANS = ("db", "submit", "claim", "audit", "context", "render")


def _by_input(runs: list[dict]) -> dict[str, list[dict]]:
    return {mode: [r for r in runs if r["input"] == mode] for mode in INPUTS}


def _headline(runs: list[dict]) -> None:
    print("\nsubmit -> next item usable (another case, first field focused and enabled, case text painted), ms")
    print(f"{'input':<10} {'n':>3} {'p50':>7} {'p95':>7} {'max':>7} {'mean':>7}   rating.js's own figure p50 / p95")
    for mode, group in [*_by_input(runs).items(), ("all", runs)]:
        totals = [r["marks"]["painted"] for r in group]
        own = [r["rating_js_ms"] for r in group]
        if not totals:
            continue
        print(f"{mode:<10} {len(totals):>3} {pct(totals, .5):>7.1f} {pct(totals, .95):>7.1f} {max(totals):>7.1f} "
              f"{statistics.fmean(totals):>7.1f}   {pct(own, .5):.1f} / {pct(own, .95):.1f}")
    print("(rating.js's own figure, issue 16: from the submit handler to a timer after the swap's next frame)")


def _breakdown(runs: list[dict]) -> None:
    groups = _by_input(runs)
    print("\nwhere the time goes, ms (p50 / p95 / mean per stage; the unindented means add up to the total's)")
    head = "".join(f"{mode + ' (n=' + str(len(g)) + ')':>26}" for mode, g in groups.items() if g)
    print(f"{'stage':<50}{head}")
    for label, indent, stage in STAGES:
        cells = ""
        for group in groups.values():
            if group:
                values = [stage(r) for r in group]
                cells += f"{pct(values, .5):>10.1f}{pct(values, .95):>8.1f}{statistics.fmean(values):>8.1f}"
        print(f"{'  ' * indent + label:<50}{cells}")
    cells = [", ".join(f"{key} {statistics.median(r['main_thread'][key] for r in group):.1f}"
                       for key in ("script", "style", "layout"))
             for group in groups.values() if group]
    print("\nthe page's main thread from the input to the run's end (DevTools Performance metrics), median ms: "
          + " | ".join(f"{mode} {cell}" for mode, cell in zip((m for m, g in groups.items() if g), cells, strict=True)))
    every = [server(r) for r in runs]
    queries = ", ".join(f"{name} {statistics.median(m.get(name, (0, 0, 0))[1] for m in every):.0f}" for name in QUERY_SPANS)
    commits = statistics.median(m.get("commit", (0, 0, 0))[2] for m in every)
    size = statistics.median(r["resource"]["bytes"] for r in runs) / 1024
    print(f"\nper submit-and-next request (median): queries: {queries}; {commits:.0f} commits; "
          f"answer {size:.0f} KiB of HTML")
    for mode, group in groups.items():
        if group:
            print(f"{mode}: {sum(r['missed'] for r in group)} of {sum(r['fields'] for r in group)} picks did not "
                  f"take; layout shift total {group[0]['layout_shift']:.4f}")


def print_report(runs: list[dict], args: argparse.Namespace, *, load: tuple[tuple[float, ...], tuple[float, ...]]) -> None:
    fields = statistics.median(r["fields"] for r in runs) if runs else 0
    print(f"\n{len(runs)} items ({args.rounds} rounds of {args.items} by keyboard and {args.items} by mouse, alternated), "
          f"{fields:.0f} fields per item, PostgreSQL, gunicorn gthread {args.workers} x {args.threads}, DEBUG=0, "
          f"{args.think:.2f} s between actions, {args.history} items rated before by each rater")
    print("load average (1, 5, 15 min) before: " + " ".join(f"{x:.2f}" for x in load[0])
          + "; after: " + " ".join(f"{x:.2f}" for x in load[1]))
    if runs:
        _headline(runs)
        _breakdown(runs)


def print_profile(directory: Path) -> None:
    files = sorted(str(p) for p in directory.glob("*.prof"))
    if not files:
        print("no profile was written")
        return
    out = io.StringIO()
    stats = pstats.Stats(*files, stream=out)
    stats.files = []  # not one line per profile file
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(25)
    print(f"\nprofile of {len(files)} submit-and-next requests (cProfile; the timings above are inflated by it)")
    text = out.getvalue()
    prefixes = {f"{p}/" for p in sys.path if p.endswith("site-packages")} | {f"{ROOT}/"}
    for prefix in sorted(prefixes, key=len, reverse=True):  # site-packages lies inside the checkout
        text = text.replace(prefix, "")
    print(text)
