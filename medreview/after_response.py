"""Work a request causes but its answer does not need, run once the answer has been sent.

`after_response(key, task)` runs `task` when the response is closed, which the WSGI server does after
writing the last byte (gunicorn, runserver and Django's test client alike), so the person waiting sees
the answer without that work's queries and commit; outside a request (a management command, a
background task, a service called from a test) it runs at once. Tasks with the same key run once per
request, in the order they were first asked for.

What may go here is work that something else would also do if it never ran: sealing the audit chain
(issue 27) is the example, as every later writer and every reader of the trail seals what is pending.
A task's error is logged, never raised: the answer has already gone out.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Hashable

from django.http import HttpRequest, HttpResponseBase

log = logging.getLogger(__name__)

_pending: contextvars.ContextVar[dict[Hashable, Callable[[], object]] | None] = contextvars.ContextVar(
    "medreview_after_response", default=None)


def after_response(key: Hashable, task: Callable[[], object]) -> None:
    """Run `task` once this request's response is closed (at once outside a request)."""
    pending = _pending.get()
    if pending is None:
        task()
    else:
        pending.setdefault(key, task)


def in_request() -> bool:
    """Inside a request served through `AfterResponseMiddleware` (not a command, task or bare call)."""
    return _pending.get() is not None


def _run(tasks: list[Callable[[], object]]) -> None:
    for task in tasks:
        try:
            task()
        except Exception:  # the answer is out: log, and let the next writer or reader do the work
            log.exception("work after the response failed: %r", task)


class AfterResponseMiddleware:
    """Collects the request's `after_response` tasks and hands them to the response's closing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        pending: dict[Hashable, Callable[[], object]] = {}
        token = _pending.set(pending)
        try:
            response = self.get_response(request)
        except BaseException:
            _pending.reset(token)
            _run(list(pending.values()))
            raise
        _pending.reset(token)
        if pending:
            tasks = list(pending.values())
            # Closers run in response.close(), before Django's request_finished (which closes the
            # database connection when it has outlived CONN_MAX_AGE).
            response._resource_closers.append(lambda: _run(tasks))
        return response
