"""Launching, cancelling and resuming runs: the write side a view or a command asks for.

Creating a run writes one queued Trace per job in the same transaction, and jobs are sent to
the workers only after it commits, so a worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import itertools
from decimal import Decimal

from django.db import transaction

from patientagentbench.models import ModelConfig, Run, Suite, Task, Trace
from patientagentbench.runs import jobs
from patientagentbench.runs.execution import TRACES, execute_trace
from patientagentbench.runs.limits import TRACE_BATCH, check_launch_size


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
    call_limit: int | None = None,
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
            call_limit=call_limit,
            patient_model=patient_model,
            created_by=created_by,
            label=label,
        )
        new_traces = (
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
        for batch in itertools.batched(new_traces, TRACE_BATCH):
            Trace.objects.bulk_create(batch)
        if enqueue:
            jobs.dispatch_on_commit(TRACES, run, n_jobs)
        else:
            run.unsent = 0
    return run


def execute_inline(run: Run) -> None:
    """Run every queued job in this process (demo seeding, tests, small scripts)."""
    for trace_id in run.traces.filter(status=Trace.Status.QUEUED).values_list("pk", flat=True):
        execute_trace(trace_id)


def enqueue_queued(run_id: int) -> int:
    return jobs.enqueue_queued(TRACES, run_id)


def cancel_run(run_id: int) -> bool:
    return jobs.cancel(TRACES, run_id)


def resume_run(run_id: int) -> int:
    """Queue again what was cancelled, stopped or lost with a dead worker (`jobs.resume`);
    a no-op on imported runs. Run.DoesNotExist for an unknown id."""
    return jobs.resume(TRACES, run_id)
