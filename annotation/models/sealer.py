"""Sealing the audit chain in batches, off the request (issues 26 and 27).

Sealing a study's pending events costs a transaction of its own: the head row locked, the chain's end
checked, the pending events read and numbered, the head saved, a commit. Done after every review write
it was a fifth of a queue request's processor time and its database work, paid once per event although
one seal numbers every event pending at that moment. So a request only marks its studies as owed; each
server process has one `BatchSealer` thread that, woken by the first owed study, waits
`AUDIT_SEAL_BATCH_SECONDS` to gather the writes of that moment and then seals them in one transaction
per study. A burst of writes then costs one seal per study per interval per process, and nobody waits
for it.

Nothing depends on the thread for correctness: every reader of the trail seals first (exports, item
history, `verify_audit_trail --db`), the next writer of the study seals what is pending, and the owed
studies are sealed when the process exits. An event is pending for at most the interval while its
process runs; `AUDIT_SEAL_GRACE_SECONDS` (an hour) is what would refuse it.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable

from django.db import close_old_connections

log = logging.getLogger("medreview.audit")


class BatchSealer:
    """One thread per process sealing the studies owed to it, a batch every `interval` seconds."""

    def __init__(self, seal: Callable[[int], object], interval: Callable[[], float]) -> None:
        self._seal, self._interval = seal, interval
        self._lock = threading.Lock()
        self._owed: set[int] = set()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0

    def owe(self, study_id: int) -> None:
        """Seal this study's pending events within the interval."""
        with self._lock:
            self._owed.add(study_id)
            # Threads do not survive a fork (gunicorn's workers): each process starts its own.
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="audit-chain-sealer", daemon=True)
                self._thread.start()
        self._wake.set()

    def flush(self) -> None:
        """Seal everything owed now (process exit; tests)."""
        with self._lock:
            owed, self._owed = self._owed, set()
        self._seal_each(owed)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self._interval())  # gather the writes of this moment
            with self._lock:
                owed, self._owed = self._owed, set()
                self._wake.clear()  # under the lock: an owe() after this sets it again
            if owed:
                close_old_connections()  # this thread's connection: dropped by the database, or too old
                self._seal_each(owed)
                close_old_connections()  # kept between batches only with CONN_MAX_AGE (persistent)

    def _seal_each(self, owed: set[int]) -> None:
        for study_id in sorted(owed):
            try:
                self._seal(study_id)
            except Exception:  # logged; the next writer or reader of the study seals it
                log.exception("audit chain of study %s: sealing in the background failed", study_id)


def _flush_at_exit(sealer: BatchSealer) -> None:
    try:
        sealer.flush()
    except Exception:  # the interpreter is going down; the next writer or reader seals
        log.exception("audit chain: sealing at exit failed")


def batch_sealer(seal: Callable[[int], object], interval: Callable[[], float]) -> BatchSealer:
    sealer = BatchSealer(seal, interval)
    atexit.register(_flush_at_exit, sealer)
    return sealer
