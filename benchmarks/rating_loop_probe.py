"""gunicorn's application for benchmarks/rating_loop.py: medreview.wsgi with the rating loop's spans.

The Server-Timing middleware (medreview/server_timing.py) times the whole request, the view and the
database. Until the review code marks its own parts with `server_timing.span`, this module marks
them from outside, by wrapping the functions the submit-and-next request goes through (nothing in
the repository is changed; the wrappers live only in the benchmark's gunicorn workers):

    submit   annotation.rating.screen.save_then_submit        (the labels saved, the submission recorded)
    audit    annotation.models.events.seal_audit_chain_nowait (sealing the audit chain: after the answer since
                                                               issue 27, so 0 inside the request; docs/curation.md)
    claim    annotation.rating.services.queue.assignment_claim_next  (the next item leased)
    context  annotation.rating.screen.rating_context          (the rating page's data: fields, queue, text)
    render   Django template rendering                        (rating.html and its includes)
    commit   every transaction's COMMIT                 (the database's write to disk; not in `db`)

With RATING_LOOP_PROFILE=<directory>, every submit-and-next request is also profiled (cProfile) into
<directory>/<pid>-<n>.prof; the benchmark prints the functions that cost most. Profiling slows the
server, so its timings are then not comparable.
"""

from __future__ import annotations

import cProfile
import functools
import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from medreview import server_timing
from medreview.wsgi import application  # noqa: F401 - what gunicorn serves (sets Django up)

SUBMIT_AND_NEXT = "/submit-next/"


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with server_timing.span(name):
            return function(*args, **kwargs)

    return wrapper


def _profile_submit_and_next(directory: Path) -> None:
    """Profile every submit-and-next request, middleware included, one file per request."""
    from django.core.handlers import base

    original = base.BaseHandler.get_response
    counter = itertools.count(1)

    def get_response(handler: Any, request: Any) -> Any:
        if SUBMIT_AND_NEXT not in request.path:
            return original(handler, request)
        profile = cProfile.Profile()  # per thread: each request of a gthread worker has its own
        response = profile.runcall(original, handler, request)
        profile.dump_stats(directory / f"{os.getpid()}-{next(counter)}.prof")
        return response

    base.BaseHandler.get_response = get_response


def install() -> None:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.template.backends import django as django_backend

    from annotation.models import events
    from annotation.rating import views

    # Each function is replaced where its caller looks it up (the module that imported it by name).
    events.seal_audit_chain = _timed("audit", events.seal_audit_chain)
    if hasattr(events, "seal_audit_chain_nowait"):  # issue 27: what a writer's on-commit step calls
        events.seal_audit_chain_nowait = _timed("audit", events.seal_audit_chain_nowait)
    views.save_then_submit = _timed("submit", views.save_then_submit)
    views.assignment_claim_next = _timed("claim", views.assignment_claim_next)
    views.rating_context = _timed("context", views.rating_context)
    django_backend.Template.render = _timed("render", django_backend.Template.render)
    BaseDatabaseWrapper.commit = _timed("commit", BaseDatabaseWrapper.commit)
    if os.environ.get("RATING_LOOP_PROFILE"):
        _profile_submit_and_next(Path(os.environ["RATING_LOOP_PROFILE"]))


install()
