"""Launching, cancelling and resuming runs: the write side a view or a command asks for.

Creating a run writes one queued Trace per job in the same transaction, and jobs are sent to
the workers only after it commits, so a worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import itertools
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from patientagentbench.conversation import EndReason
from patientagentbench.models import ModelConfig, Run, Suite, Task, Trace
from patientagentbench.runs.dispatch import send_each
from patientagentbench.runs.execution import (
    STALE_INLINE,
    execute_trace,
    execute_trace_job,
    requeue_lost_traces,
)
from patientagentbench.runs.limits import TRACE_BATCH, check_launch_size
from patientagentbench.runs.workers import live_workers

STALE_RUNNING = STALE_INLINE  # a trace run inline (no worker to watch) counts as lost after this


def job_key(run_id: int, task_id: str, model_name: str, temperature, repetition: int) -> str:
    return f"run{run_id}:{task_id}:{model_name}:t{temperature}:r{repetition}"


def job_count(n_tasks: int, n_models: int, n_temperatures: int, repetitions: int) -> int:
    return n_tasks * n_models * n_temperatures * repetitions


def launch_run(
    *,
    suite: Suite,
    models: list[ModelConfig],
    tasks: list[Task] | None = None,
    repetitions: int = 1,
    temperatures: list[float] | None = None,
    max_iterations: int = 10,
    max_turns: int = 1,
    spend_limit: Decimal | None = None,
    patient_model: ModelConfig | None = None,
    created_by=None,
    label: str = "",
    enqueue: bool = True,
) -> Run:
    """Create the run and one queued trace per job; LaunchTooLarge (before anything is
    written) when it breaks a limit in `runs.limits`. `run.unsent` says how many jobs the
    broker refused once the launch committed (they stay queued: `runs.dispatch`)."""
    temperatures = temperatures or [1.0]
    tasks = list(tasks) if tasks is not None else list(suite.tasks.all())
    n_jobs = check_launch_size(
        tasks=len(tasks),
        models=len(models),
        temperatures=len(temperatures),
        repetitions=repetitions,
        max_iterations=max_iterations,
        max_turns=max_turns,
    )
    with transaction.atomic():
        run = Run.objects.create(
            suite=suite,
            repetitions=repetitions,
            temperatures=temperatures,
            max_iterations=max_iterations,
            max_turns=max_turns,
            spend_limit=spend_limit,
            patient_model=patient_model,
            created_by=created_by,
            label=label,
        )
        jobs = (
            Trace(
                run=run,
                task=task,
                model=model,
                model_name=model.name,
                temperature=temperature,
                repetition=repetition,
                key=job_key(run.pk, task.task_id, model.name, temperature, repetition),
            )
            for task in tasks
            for model in models
            for temperature in temperatures
            for repetition in range(repetitions)
        )
        # A batch at a time: bulk_create would hold every row of a large run in memory.
        for batch in itertools.batched(jobs, TRACE_BATCH):
            Trace.objects.bulk_create(batch)
        run.unsent = 0
        if enqueue:
            transaction.on_commit(lambda: setattr(run, "unsent", n_jobs - enqueue_queued(run.pk)))
    return run


def execute_inline(run: Run) -> None:
    """Run every queued job in this process (demo seeding, tests, small scripts)."""
    for trace_id in run.traces.filter(status=Trace.Status.QUEUED).values_list("pk", flat=True):
        execute_trace(trace_id)


def enqueue_queued(run_id: int) -> int:
    ids = Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).values_list(
        "pk", flat=True
    )
    return send_each(execute_trace_job, ids.iterator(chunk_size=2000))


def cancel_run(run_id: int) -> bool:
    with transaction.atomic():
        cancelled = Run.objects.filter(pk=run_id, status__in=Run.ACTIVE).update(
            status=Run.Status.CANCELLED, stop_reason="Cancelled.", finished_at=timezone.now()
        )
        Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).update(
            status=Trace.Status.CANCELLED, end_reason=EndReason.CANCELLED
        )
    return bool(cancelled)


def resume_run(run_id: int) -> int:
    """Queue again what was cancelled, stopped or lost with a dead worker; keep what is done.

    Works on a running run too: traces held by workers that stopped beating are taken back
    at once (the workers' heartbeat does the same within a minute), traces run inline are
    taken back after STALE_RUNNING, and every queued trace is sent again (harmless for those
    already on their way: a trace is claimed once). Run.DoesNotExist for an unknown id."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.source != Run.Source.LAUNCHED:
            return 0
        requeued = Trace.objects.filter(run=run, status=Trace.Status.CANCELLED).update(
            status=Trace.Status.QUEUED, end_reason="", error="", worker=""
        )
        if requeued:
            run.status, run.stop_reason, run.finished_at = Run.Status.RUNNING, "", None
            run.save(update_fields=["status", "stop_reason", "finished_at"])
        # Taken back after the run is active again, so lost claims are queued, not cancelled.
        live = list(live_workers().values_list("hostname", flat=True))
        requeued += requeue_lost_traces(live, run_id=run.pk)
        transaction.on_commit(lambda: enqueue_queued(run_id))
    return requeued
