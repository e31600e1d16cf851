"""Two deliveries of one job racing for it on PostgreSQL: exactly one claims it.

SQLite serialises writers, so the race only exists on a database with row locks. Django moves
an UPDATE's filters on a joined table into `id IN (SELECT …)`, which PostgreSQL does not check
again against a row a concurrent claim has just changed; a claim written that way let both
deliveries win now and then."""

import threading

import pytest
from django.db import connection, connections

from patientagentbench.runs import jobs
from patientagentbench.runs.execution import TRACES
from patientagentbench.runs.launch import launch_run
from tests.services import require_services

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

DELIVERIES = 4  # of each job, at once


def _race(trace_id: int) -> list:
    start = threading.Barrier(DELIVERIES)
    won = [None] * DELIVERIES

    def deliver(index: int) -> None:
        try:
            start.wait()
            won[index] = jobs.claim(TRACES, trace_id, f"worker-{index}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=deliver, args=(i,)) for i in range(DELIVERIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [claim for claim in won if claim is not None]


def test_of_simultaneous_deliveries_exactly_one_claims_the_job(office_suite, sim_models):
    require_services()
    assert connection.vendor == "postgresql"
    run = launch_run(suite=office_suite, models=sim_models, repetitions=1, enqueue=False)
    traces = list(run.traces.all()[:40])
    for trace in traces:
        winners = _race(trace.pk)
        trace.refresh_from_db()
        assert len(winners) == 1, f"trace {trace.pk}: {len(winners)} deliveries claimed it"
        assert (trace.status, trace.attempts, trace.worker) == ("running", 1, winners[0].worker)
