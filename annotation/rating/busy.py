"""A busy database answers "not stored, try again" instead of the error page (issue 21).

SQLite (the quick start's database) lets one writer at a time; with WAL, IMMEDIATE transactions and
a busy timeout (medreview/settings) a writer waits its turn, but a lock held longer than the
timeout still raises OperationalError. On the rating screen that must never replace the form with
the error page: the draft save answers JSON and the submit a short page, both 503 with Retry-After,
and static/js/rating.js keeps the labels and retries. The review API answers the same 503 from
medreview.drf.exception_handler; both use medreview.errors.is_database_busy.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from medreview.errors import BUSY_RETRY_AFTER_SECONDS, is_database_busy

logger = logging.getLogger(__name__)

View = Callable[..., HttpResponse]


def answers_busy_database(*, json: bool) -> Callable[[View], View]:
    """Turn a busy database into a 503 the page understands (JSON for autosave, a page for submit)."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except OperationalError as exc:
                if not is_database_busy(exc):
                    raise
                logger.warning("busy database on %s: %s", request.path, exc)
                message = _("The database is busy: not submitted, your labels are kept. Trying again…")
                if json:
                    response: HttpResponse = JsonResponse(
                        {"ok": False, "busy": True,
                         "errors": [_("The database is busy: not saved yet, your labels are kept. Trying again…")]},
                        status=503)
                else:
                    response = render(request, "rating/busy.html", {"message": message}, status=503)
                response["Retry-After"] = str(BUSY_RETRY_AFTER_SECONDS)
                response["Cache-Control"] = "no-store"
                return response

        return wrapped

    return decorate
