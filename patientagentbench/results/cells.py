"""Group a run's traces into cells and store each cell's metrics."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from patientagentbench.analysis.metrics import cell_metrics
from patientagentbench.models import CellMetrics, Trace
from patientagentbench.scoring import trace_data

METRIC_STATUSES = (Trace.Status.DONE, Trace.Status.ERROR)


def cells_of(traces, by_task_name: bool = False) -> dict[tuple, list]:
    cells: dict[tuple, list] = defaultdict(list)
    for trace in traces:
        task = trace.task.task_id if by_task_name else trace.task_id
        cells[(task, trace.model_name, trace.temperature)].append(trace)
    return cells


def compute_cells(traces, by_task_name: bool = False) -> list[dict]:
    """One row per cell with its metrics; errored traces are counted, not measured.

    Within a run a cell is (task row, model, temperature); across runs, tasks are matched by
    their task id so imported and generated traces of one task form one cell.
    """
    rows = []
    for (_task, model_name, temperature), members in cells_of(traces, by_task_name).items():
        values = cell_metrics([trace_data(t) for t in members])
        rows.append(
            {
                "task": members[0].task,
                "model": model_name,
                "temperature": temperature,
                "values": values,
            }
        )
    rows.sort(key=lambda r: (r["task"].task_id, r["model"], r["temperature"] or 0))
    return rows


def run_traces(run_id: int | None):
    """The traces metrics are computed on: one run's, or every run's when run_id is None."""
    traces = Trace.objects.filter(status__in=METRIC_STATUSES)
    if run_id is not None:
        traces = traces.filter(run_id=run_id)
    return traces.select_related("task").only(
        "task__task_id",
        "task__category",
        "task__difficulty",
        "model_name",
        "temperature",
        "tool_calls",
        "final_response",
        "error",
        "correct",
        "status",
    )


def recompute_run_metrics(run_id: int) -> list[dict]:
    rows = compute_cells(run_traces(run_id))
    with transaction.atomic():
        CellMetrics.objects.filter(run_id=run_id).delete()
        CellMetrics.objects.bulk_create(
            CellMetrics(
                run_id=run_id,
                task=row["task"],
                model_name=row["model"],
                temperature=row["temperature"],
                values=row["values"],
            )
            for row in rows
        )
    return rows
