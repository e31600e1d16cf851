"""Why a stamp. The pages poll every 5 s while clinicians work. Each poll first asks the database
one question: how many submissions and verdicts there are and the newest of each (plus the
last reference edit or withdrawal, and the cell metrics of runs). The answer is part of every
cache key, so a quiet poll costs that one query and a new score makes the next poll recompute,
once: while one request recomputes, the others get the previous numbers. Row ids repeat across
databases (a test database, a fresh demo) while the cache outlives them, so the newest
timestamps are part of the stamp as well as the ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.db import connection
from django.utils import timezone

from annotation.models import AuditEvent, Submission
from jury.models import JudgeQualification, Verdict
from patientagentbench.cache import memo
from patientagentbench.models import CellMetrics

DATA_VERSION = 11  # part of every cache key: raise it when the shape of the cached data changes
CACHE_SECONDS = 24 * 3600
COMPUTE_LOCK_SECONDS = 60  # a recompute takes seconds; a crashed one frees the page after this
POLL_SECONDS = 5
STAMP_ACTIONS = ("reference_set", "withdrawn", "consensus_adopted")


# --- the stamp: one query that says whether anything changed ------------------------------------


def stamp() -> str:
    """Changes whenever a score, a verdict, a reference, a withdrawal, a run's cell metrics or a
    judge's calibration record change; one query (scalar subqueries, so no table is joined to another)."""
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql(), list(STAMP_ACTIONS))
        row = cursor.fetchone()
    return hashlib.sha256(repr(row).encode()).hexdigest()[:20]


def _stamp_sql() -> str:
    quote = connection.ops.quote_name
    submission, verdict = quote(Submission._meta.db_table), quote(Verdict._meta.db_table)
    audit, cells = quote(AuditEvent._meta.db_table), quote(CellMetrics._meta.db_table)
    qualifications = quote(JudgeQualification._meta.db_table)
    actions = ", ".join(["%s"] * len(STAMP_ACTIONS))
    parts = [
        f"(SELECT COUNT(*) FROM {submission})",
        f"(SELECT MAX(id) FROM {submission})",
        f"(SELECT MAX(submitted_at) FROM {submission})",
        f"(SELECT COUNT(*) FROM {verdict})",
        f"(SELECT MAX(id) FROM {verdict})",
        f"(SELECT MAX(created_at) FROM {verdict})",
        f"(SELECT MAX(id) FROM {audit} WHERE action IN ({actions}))",
        f"(SELECT COUNT(*) FROM {cells})",
        f"(SELECT MAX(computed_at) FROM {cells})",
        # A judge's calibration record (or its re-opening) changes which verdicts are offered.
        f"(SELECT COUNT(*) FROM {qualifications})",
        f"(SELECT MAX(id) FROM {qualifications})",
        f"(SELECT MAX(reopened_at) FROM {qualifications})",
    ]
    return "SELECT " + ", ".join(parts)


def cached(base: str, current: str, compute: Callable[[], dict]) -> dict:
    """The data for this stamp; else computed once. While one request computes, other polls
    for the same page and filters get the previous numbers (their stamp says so, so their
    next poll asks again) instead of computing the same thing alongside it."""
    return memo(
        base,
        current,
        lambda: compute() | {"stamp": current, "computed_at": timezone.now().isoformat()},
        timeout=CACHE_SECONDS,
        lock_s=COMPUTE_LOCK_SECONDS,
        previous_while_computing=True,
    )
