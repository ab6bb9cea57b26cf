"""A `Server-Timing` header saying where a request's time went: the whole request, the view, the
database, and any named span the code marks (`benchmarks/rating_loop.py` reads it from the page).

On only with the setting `SERVER_TIMING` (environment `SERVER_TIMING=1`): the header tells every
client how long the server took over each part, which a production server keeps to itself. The
setting puts two middleware classes around the stack:

- `ServerTimingMiddleware` first: `total` (every middleware and the view), `db` (the time spent
  in the database, with the number of queries) and `cpu` (the processor time of the request's own
  thread: on a busy machine, `total - cpu` is what the request spent waiting, for the database, for
  locks or for a processor), and writes the header;
- `ServerTimingViewMiddleware` last: `view` (URL resolution, `process_view` hooks and the view
  itself), so `total - view` is the cost of the middleware on the path.

Code marks its own parts with `span`, which costs nothing when the setting is off:

    with server_timing.span("claim"):
        assignment = assignment_claim_next(...)

Spans of the same name add up (a request that renders twice reports the sum and "in 2 calls"); each
carries the number of queries run inside it. The header reads, for example:

    Server-Timing: total;dur=21.4, db;dur=6.2;desc="14 queries", view;dur=17.9;desc="12 queries",
                   claim;dur=3.1;desc="4 queries", render;dur=8.8;desc="6 queries", cpu;dur=12.0
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from time import perf_counter, thread_time
from typing import Any

from django.db import connections
from django.http import HttpRequest, HttpResponse

HEADER = "Server-Timing"


@dataclass(eq=False)  # spans are told apart by identity
class _Span:
    seconds: float = 0.0
    queries: int = 0
    times: int = 0


@dataclass
class RequestTiming:
    """The spans of one request; the database time is counted per query, into every open span."""

    spans: dict[str, _Span] = field(default_factory=dict)
    open: list[_Span] = field(default_factory=list)
    db: _Span = field(default_factory=_Span)

    def database(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        """A `connection.execute_wrapper`: times every query of the request."""
        start = perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.db.seconds += perf_counter() - start
            self.db.queries += 1
            for span_ in self.open:
                span_.queries += 1

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        span_ = self.spans.setdefault(name, _Span())
        if span_ in self.open:  # re-entered (a render inside a render): the outer one counts it
            yield
            return
        self.open.append(span_)
        span_.times += 1
        start = perf_counter()
        try:
            yield
        finally:
            span_.seconds += perf_counter() - start
            self.open.remove(span_)

    def header(self) -> str:
        metrics = [_metric(name, span_, queries=name not in ("total", "cpu")) for name, span_ in self.spans.items()]
        metrics.insert(1, _metric("db", self.db, queries=True))
        return ", ".join(metrics)


def _metric(name: str, span_: _Span, *, queries: bool) -> str:
    text = f"{name};dur={span_.seconds * 1000:.1f}"
    if not queries:
        return text
    times = f" in {span_.times} calls" if span_.times > 1 else ""  # no comma: it separates metrics
    return f'{text};desc="{span_.queries} queries{times}"'


_current: contextvars.ContextVar[RequestTiming | None] = contextvars.ContextVar("server_timing", default=None)


@contextmanager
def span(name: str) -> Iterator[None]:
    """Time the block as `name` in the current request's header; nothing when timing is off."""
    timing = _current.get()
    if timing is None:
        yield
        return
    with timing.measure(name):
        yield


class ServerTimingMiddleware:
    """First in MIDDLEWARE (the settings put it there when SERVER_TIMING is on)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        timing = RequestTiming()
        token = _current.set(timing)
        try:
            with ExitStack() as wrappers:
                # Per thread, like the connections themselves; no database connection is opened here.
                for alias in connections:
                    wrappers.enter_context(connections[alias].execute_wrapper(timing.database))
                cpu = thread_time()
                with timing.measure("total"):
                    response = self.get_response(request)
                timing.spans["cpu"] = _Span(seconds=thread_time() - cpu)
        finally:
            _current.reset(token)
        response[HEADER] = timing.header()
        return response


class ServerTimingViewMiddleware:
    """Last in MIDDLEWARE: everything inside it is the `view` span."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with span("view"):
            return self.get_response(request)
