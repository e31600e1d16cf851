"""Finished simulated runs for tests that read, review or score conversations rather than run
them: `simulated_run` is `launch_run` + `execute_inline`, without the second cost.

The first call for given inputs in a test session launches and executes the run for real (the
simulation is seeded by the task, the model, the temperature and the repetition, so the same
inputs always give the same conversations). Later calls write the rows that run ended with
onto the caller's own suite and models: a new run and its traces with new ids and timestamps
(shifted, so their order and spacing are kept), and the run's cell metrics computed by the real
`recompute_run_metrics`. Executing a run costs about 25 ms a trace in database round trips;
copying one costs one insert for all of them.

tests/test_finished_runs.py shows a copy equals a real run field by field and writes
the same tables, so a change to what executing a run writes fails there first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import transaction
from django.db.models import DateTimeField
from django.utils import timezone

from patientagentbench.models import ModelConfig, Run, Suite, Trace
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.runs.launch import execute_inline, job_key, launch_run

# What a test may pass on to launch_run: plain values only (a user or a patient model would be
# another row to copy).
OPTIONS = {"repetitions", "temperatures", "max_iterations", "max_turns", "spend_limit", "label"}


@dataclass(frozen=True)
class _Finished:
    run: dict
    traces: list[dict]  # each with "task_id" and "model_name" for the links


_FINISHED: dict[str, _Finished] = {}


def values(row, *, links: bool = False) -> dict:
    """A row's own values (not its id; its links only when asked, by attribute name)."""
    return {
        field.attname: getattr(row, field.attname)
        for field in row._meta.concrete_fields
        if not field.primary_key and (links or not field.is_relation)
    }


def _inputs(suite: Suite, models: list[ModelConfig], options: dict) -> str:
    """Everything the run's conversations depend on, as one string (not when rows were made)."""

    def described(row) -> dict:
        timestamps = {f.attname for f in row._meta.concrete_fields if isinstance(f, DateTimeField)}
        return {name: value for name, value in values(row).items() if name not in timestamps}

    inputs = {
        "suite": described(suite),
        "tasks": [described(task) for task in suite.tasks.order_by("task_id")],
        "models": [described(model) for model in models],
        "options": options,
    }
    return json.dumps(inputs, sort_keys=True, default=str)


def simulated_run(*, suite: Suite, models: list[ModelConfig], **options) -> Run:
    """A finished run of `models` on `suite`, as `launch_run(..., enqueue=False)` then
    `execute_inline` leave it."""
    unknown = set(options) - OPTIONS
    assert not unknown, f"simulated_run copies no {sorted(unknown)}; launch the run instead"
    assert all(model.is_simulated for model in models), "only simulated models are replayed"
    key = _inputs(suite, models, options)
    finished = _FINISHED.get(key)
    if finished is None:
        run = launch_run(suite=suite, models=models, enqueue=False, **options)
        execute_inline(run)
        run.refresh_from_db()
        _FINISHED[key] = _Finished(
            run=values(run),
            traces=[
                values(trace) | {"task_id": trace.task.task_id}
                for trace in run.traces.select_related("task").order_by("pk")
            ],
        )
        return run
    return _copy(finished, suite, models)


def _shifted(row: dict, model, shift) -> dict:
    """`row` with its timestamps moved by `shift`."""
    out = dict(row)
    for field in model._meta.concrete_fields:
        if isinstance(field, DateTimeField) and out.get(field.attname) is not None:
            out[field.attname] += shift
    return out


def _copy(finished: _Finished, suite: Suite, models: list[ModelConfig]) -> Run:
    shift = timezone.now() - finished.run["created_at"]
    tasks = {task.task_id: task for task in suite.tasks.all()}
    by_name = {model.name: model for model in models}
    with transaction.atomic():
        run = Run.objects.create(suite=suite, **_shifted(finished.run, Run, shift))
        traces = []
        for recorded in finished.traces:
            row = _shifted(recorded, Trace, shift)
            task_id = row.pop("task_id")
            row["key"] = job_key(
                run.pk, task_id, row["model_name"], row["temperature"], row["repetition"]
            )
            traces.append(
                Trace(run=run, task=tasks[task_id], model=by_name[row["model_name"]], **row)
            )
        Trace.objects.bulk_create(traces)
        recompute_run_metrics(run.pk)
    run.refresh_from_db()
    return run
