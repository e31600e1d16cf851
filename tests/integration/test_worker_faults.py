"""A worker killed mid-run: the run still completes, every trace exactly once, no manual step.

Real Celery worker processes run a run of slowish traces (a local OpenAI-compatible stub
answering in 0.25 s); one is SIGKILLed while it holds traces, another starts, and the run
must finish by itself: the survivors' heartbeat takes the lost claims back and sends them
again. On PostgreSQL and Redis when the test process is configured for them (CI), otherwise
on the embedded SQLite file and filesystem broker, so it runs everywhere.
"""

import os
import signal

import pytest

from patientagentbench.models import Run
from patientagentbench.runs.execution import progress
from patientagentbench.runs.launch import launch_run
from tests.integration.workers import (
    alive,
    claims_left_by,
    pool_children,
    running_claims,
    wait_until,
)

REPETITIONS = 2  # 19 tasks × 2: 38 traces of two 0.25 s calls each

pytestmark = pytest.mark.django_db(transaction=True)


def assert_every_trace_exactly_once(run: Run, lost: set[int]) -> None:
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, progress(run.pk)
    traces = list(run.traces.values("pk", "key", "status", "attempts", "worker", "messages"))
    assert len(traces) == 19 * REPETITIONS
    assert len({t["key"] for t in traces}) == len(traces)
    assert {t["status"] for t in traces} == {"done"}
    assert all(t["worker"] == "" and t["messages"] for t in traces)
    # Only the traces the dead worker held ran twice; every resend of the others was a no-op.
    retried = {t["pk"] for t in traces if t["attempts"] > 1}
    assert retried == lost
    assert all(t["attempts"] == 2 for t in traces if t["pk"] in lost)


def launch(office_suite, model) -> Run:
    return launch_run(suite=office_suite, models=[model], repetitions=REPETITIONS)  # sent now


def wait_for_work_under_way(run: Run, held: int) -> None:
    """Some traces done and at least `held` running: a kill now lands mid-run."""
    wait_until(
        lambda: progress(run.pk)["done"] >= 3 and len(running_claims(run)) >= held,
        90,
        f"{held} or more traces running after 3 done",
        run,
    )


@pytest.mark.parametrize("pool", ["threads", "prefork"])
def test_a_killed_worker_leaves_no_run_stuck(workers, office_suite, slow_model, pool):
    first = workers.start("first", pool=pool, concurrency=4 if pool == "threads" else 2)
    run = launch(office_suite, slow_model)
    wait_for_work_under_way(run, held=2)
    workers.kill(first)  # SIGKILL, pool and all: it acknowledges nothing, tells nobody
    lost = claims_left_by(run, dead=lambda holder: True)  # no other worker is running yet
    assert lost, "the worker held no trace when it was killed"

    workers.start("second", pool=pool, concurrency=4 if pool == "threads" else 2)
    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    assert_every_trace_exactly_once(run, lost)


def test_a_killed_prefork_child_is_replaced_and_its_trace_recovered(
    workers, office_suite, slow_model
):
    """The OOM killer takes one child of a prefork pool; the worker itself lives on."""
    worker = workers.start("pool", pool="prefork", concurrency=2)
    run = launch(office_suite, slow_model)
    wait_until(lambda: len(running_claims(run)) >= 1, 90, "a trace running", run)
    trace_id, holder = next(iter(running_claims(run).items()))
    child_pid = int(holder.split("#")[1])
    assert child_pid != worker.pid  # the child claims under its own id
    os.kill(child_pid, signal.SIGKILL)  # a process of the worker this test started
    lost = claims_left_by(run, dead=lambda claimed_by: claimed_by == holder)
    assert trace_id in lost, "the child finished its trace before it was killed"

    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    assert worker.poll() is None  # the pool replaced its child and went on
    assert_every_trace_exactly_once(run, lost)


def test_a_prefork_worker_whose_main_process_is_killed_leaves_no_run_stuck(
    workers, office_suite, slow_model
):
    """SIGKILL to the main process alone (its children orphaned, still holding traces): the
    children must not keep claims alive for ever, and a new worker finishes the run."""
    first = workers.start("parent", pool="prefork", concurrency=2)
    children = pool_children(first, 2)
    run = launch(office_suite, slow_model)
    wait_for_work_under_way(run, held=1)
    held = set(running_claims(run))
    os.kill(first.pid, signal.SIGKILL)  # the main process only, a process this test started
    first.wait(timeout=30)

    workers.start("second", pool="prefork", concurrency=2)
    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    wait_until(lambda: not any(alive(pid) for pid in children), 30, "the orphans exiting", run)
    run.refresh_from_db()
    traces = list(run.traces.values("pk", "key", "status", "attempts", "worker"))
    assert run.status == Run.Status.FINISHED, progress(run.pk)
    assert len({t["key"] for t in traces}) == len(traces) == 19 * REPETITIONS
    assert {(t["status"], t["worker"]) for t in traces} == {("done", "")}
    # An orphan may finish what it held or lose it to the new worker; nothing else reruns.
    assert {t["pk"] for t in traces if t["attempts"] > 1} <= held
    assert max(t["attempts"] for t in traces) <= 2
