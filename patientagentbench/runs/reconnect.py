"""After the broker comes back, send the queued jobs again.

A Redis restart can lose messages: all of them without persistence, and the ones a worker
had fetched in any case (they come back only after the visibility timeout, which outlasts
the longest job). The database still knows which jobs are queued, so the first worker to
reconnect sends them again; a job is claimed once, so any extra copies are no-ops.

A consumer bootstep, so that Celery starts it on every connection; only this module is
imported when the Celery app is made, before Django is set up.
"""

from __future__ import annotations

import logging
import threading

from celery import bootsteps

log = logging.getLogger(__name__)


class ResendAfterReconnect(bootsteps.StartStopStep):
    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.connections = 0

    def start(self, parent) -> None:
        self.connections += 1
        if self.connections > 1:  # the first is the worker starting: nothing was lost
            threading.Thread(target=_resend, name="pab-resend", daemon=True).start()


# Workers reconnect together after a restart; one of them sending everything is enough.
ONE_RESEND_PER_S = 30


def _resend() -> None:
    from django.core.cache import cache
    from django.db import close_old_connections

    from patientagentbench.runs.workers import resend_queued_jobs

    try:
        if not cache.add("pab:resend-after-reconnect", 1, ONE_RESEND_PER_S):
            log.warning("broker connection restored; another worker sends the queued jobs")
            return
        sent = resend_queued_jobs()
        log.warning("broker connection restored; sent %d queued jobs again", sent)
    except Exception:  # noqa: BLE001 - the next reconnect or a lost worker tries again
        log.exception("sending queued jobs again after a reconnect failed")
    finally:
        close_old_connections()
