"""A spend limit reached while a real worker runs traces in parallel: the run stops cleanly.

Four threads hold traces of a priced model when the limit is crossed. Every trace must end
(none left queued or running), the ones cut short as cancelled with the spend-limit reason and
their conversation so far kept, nothing as an error; the overshoot is bounded by the calls
already in flight; and the worker lives on.
"""

from decimal import Decimal

import pytest

from patientagentbench.conversation import EndReason
from patientagentbench.models import Run, Trace
from patientagentbench.runs.execution import progress
from patientagentbench.runs.launch import launch_run
from tests.integration.workers import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 4


def test_a_spend_limit_stops_a_parallel_run_cleanly(workers, office_suite, slow_model):
    slow_model.price_in = slow_model.price_out = Decimal("1000")  # about $1 a call, $2 a trace
    slow_model.save()
    workers.start("spender", pool="threads", concurrency=THREADS)
    # Above what THREADS whole conversations cost: until one finishes, at most THREADS are in
    # flight, so the limit cannot be crossed before one is done, however the threads interleave
    # (at $3, four conversations in lockstep crossed it on their first calls: 0 done).
    limit = Decimal("10")
    run = launch_run(suite=office_suite, models=[slow_model], repetitions=2, spend_limit=limit)

    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run stopping", run)
    # Traces in flight when the limit was crossed finish their current call, then stop.
    wait_until(
        lambda: (
            not run.traces.filter(status__in=[Trace.Status.QUEUED, Trace.Status.RUNNING]).exists()
        ),
        60,
        "the traces in flight ending",
        run,
    )
    run.refresh_from_db()
    counts = progress(run.pk)
    assert run.status == Run.Status.STOPPED and "spend limit" in run.stop_reason
    assert counts["error"] == 0
    assert counts["done"] + counts["cancelled"] == counts["total"] == 38
    assert counts["cancelled"] >= 1 and counts["done"] >= 1

    cut_short = run.traces.filter(status=Trace.Status.CANCELLED).exclude(messages=[])
    assert all(t.end_reason == EndReason.SPEND_LIMIT for t in run.traces.filter(status="cancelled"))
    assert all(t.worker == "" for t in run.traces.all())
    # Spent what the finished and cut-short conversations cost, no more.
    per_trace = sum((t.cost for t in run.traces.all()), Decimal(0))
    assert run.spent == per_trace
    # Past the limit only by the calls in flight: at most one per thread, each no dearer than
    # the dearest whole conversation.
    dearest = max(t.cost for t in run.traces.all())
    assert THREADS * dearest < limit  # the premise of done >= 1 above
    assert limit <= run.spent <= limit + THREADS * dearest
    assert cut_short.count() <= THREADS  # only those holding a call when it crossed
    assert workers.processes[0].poll() is None
