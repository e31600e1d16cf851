"""Sending jobs to the workers, when the broker may be away.

A job's row is written (queued) before its message is sent, so a message that cannot be
sent loses nothing: the row stays queued, and the workers send every queued job again when
they reconnect to the broker (`runs.reconnect`) or lose a peer (`runs.workers`);
`manage.py resume_run ID` does it by hand.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)


def send_each(task, job_ids: Iterable[int]) -> int:
    """`task.delay(id)` for each id, until the broker refuses one; how many were sent."""
    sent = 0
    ids = iter(job_ids)
    try:
        for job_id in ids:
            task.delay(job_id)
            sent += 1
    except OperationalError as exc:
        log.warning(
            "the broker is not answering (%s); %d %s jobs sent, the rest stay queued",
            exc,
            sent,
            task.name.rsplit(".", 1)[-1],
        )
    finally:
        # A database cursor behind the ids is closed now, while its connection is open.
        getattr(ids, "close", lambda: None)()
    return sent
