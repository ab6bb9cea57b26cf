"""Logging for expected refusals: one line, no traceback.

Django logs every 403 (PermissionDenied) and 404 as a warning with the exception attached, so a
physician opening an admin page writes a full traceback into the server log. Those refusals are
the access rules working; the filter drops the traceback and keeps one line. 5xx keep theirs.
"""

from __future__ import annotations

import logging


class ExpectedRefusalFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is not None and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
