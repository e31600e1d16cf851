"""Claims on jobs: which worker process holds a job, and taking back the ones lost workers held.

A job row (a Trace, a jury JudgeJob) has `status`, `worker` and `attempts`. Claiming is one
conditional UPDATE (queued with the attempts read → running, this worker, one more attempt),
so of two deliveries of one job exactly one wins. The claim is then (row, worker, attempt),
and every write of the job's result is conditional on it (`held`): a job taken back from a
worker presumed dead and run again elsewhere stores one result, whichever finishes first,
never two.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

QUEUED, RUNNING, ERROR = "queued", "running", "error"


@dataclass(frozen=True)
class Claim:
    pk: int
    worker: str  # blank for inline execution
    attempt: int


def claim_row(
    queryset: models.QuerySet, pk: int, worker: str, *, attempts: int | None = None
) -> Claim | None:
    """queued → running for this worker, once. `queryset` carries any extra condition (the
    run still active). None when another delivery won, or the job is not queued.

    `attempts` is the job's count as the caller read it with the row queued (read here when
    not given). The UPDATE is a compare-and-set on it: the count only grows, so the row still
    queued with that count is one nobody claimed since, and the claim's attempt is one more,
    with no transaction and no read after it. Keep `queryset`'s conditions on the job's own
    table (no join): Django moves the filters of an UPDATE with a join into an `id IN
    (SELECT …)` subquery, which PostgreSQL does not check again against a row a concurrent
    claim has just changed, so both deliveries would win."""
    if attempts is None:
        seen = queryset.model.objects.filter(pk=pk, status=QUEUED).order_by()
        attempts = next(iter(seen.values_list("attempts", flat=True)[:1]), None)
        if attempts is None:
            return None
    won = queryset.filter(pk=pk, status=QUEUED, attempts=attempts).update(
        status=RUNNING, worker=worker, attempts=attempts + 1, started_at=timezone.now()
    )
    return Claim(pk, worker, attempts + 1) if won else None


def held(model: type[models.Model], claim: Claim) -> models.QuerySet:
    """The job's row while the claim still holds: update through it to store a result."""
    return model.objects.filter(
        pk=claim.pk, status=RUNNING, worker=claim.worker, attempts=claim.attempt
    )


def max_attempts() -> int:
    return int(settings.JOB_MAX_ATTEMPTS)


@dataclass
class Released:
    requeued: list[int]
    given_up: list[int]


def release_lost(
    queryset: models.QuerySet,
    live_workers: Iterable[str],
    *,
    give_up: dict,
    stale_inline: timedelta | None = None,
    claimed_before: datetime | None = None,
) -> Released:
    """Take back the running jobs in `queryset` whose worker is not among `live_workers`:
    queued again, or ended as an error (`give_up`'s fields, which may name another status)
    once they used JOB_MAX_ATTEMPTS attempts.
    Jobs run inline (no worker) are taken back only when `stale_inline` says they started
    that long ago. Each row changes under a condition on its claim, so when several workers
    recover at once each job is taken back once.
    `claimed_before` spares newer claims: `live_workers` was read a moment ago, and a worker
    that started since (a prefork child replacing a dead one) may have claimed a job before
    it was seen beating; a claim that young was made by a live worker."""
    live = list(live_workers)
    lost = queryset.filter(status=RUNNING).exclude(worker="").exclude(worker__in=live)
    if claimed_before is not None:
        lost = lost.filter(Q(started_at__lt=claimed_before) | Q(started_at__isnull=True))
    rows = list(lost.values_list("pk", "worker", "attempts"))
    if stale_inline is not None:
        inline = queryset.filter(
            status=RUNNING, worker="", started_at__lt=timezone.now() - stale_inline
        )
        rows += list(inline.values_list("pk", "worker", "attempts"))
    released = Released([], [])
    limit = max_attempts()
    for pk, worker, attempts in rows:
        claim = held(queryset.model, Claim(pk, worker, attempts))
        if attempts >= limit:
            ended = {"status": ERROR, "worker": "", "finished_at": timezone.now()} | give_up
            if claim.update(**ended):
                released.given_up.append(pk)
        elif claim.update(status=QUEUED, worker=""):
            released.requeued.append(pk)
    return released
