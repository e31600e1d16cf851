"""Group traces into cells and store each cell's metrics.

A cell is (task id, model, temperature): the repetitions whose likeness the consistency
metrics measure. Tasks are matched by their task id, so imported and generated traces of one
task form one cell when every trace is analysed together. This is the one place cells are
formed; the stored metrics, the CLI and the analysis report all group through `cells_of`.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from patientagentbench.analysis.metrics import cell_metrics
from patientagentbench.models import CellMetrics, Trace
from patientagentbench.results.scoring import DEFAULT_MALFORMED, trace_data

METRIC_STATUSES = (Trace.Status.DONE, Trace.Status.ERROR)


def cells_of(traces) -> list[tuple[tuple, list]]:
    """((task id, model, temperature), traces in repetition order), in a stable cell order."""
    groups: dict[tuple, list] = defaultdict(list)
    for trace in traces:
        groups[(trace.task.task_id, trace.model_name, trace.temperature)].append(trace)
    for members in groups.values():
        members.sort(key=lambda t: t.repetition)
    return sorted(groups.items(), key=_cell_order)


def _cell_order(item):
    (task_id, model, temperature), _ = item
    return (task_id, model, temperature if temperature is not None else -1.0)


def compute_cells(traces, malformed: str = DEFAULT_MALFORMED) -> list[dict]:
    """One row per cell with its metrics; errored traces are counted, not measured."""
    return [
        {
            "task": members[0].task,
            "model": model_name,
            "temperature": temperature,
            "values": cell_metrics([trace_data(t, malformed) for t in members]),
        }
        for (_task_id, model_name, temperature), members in cells_of(traces)
    ]


def run_traces(run_id: int | None):
    """The traces metrics are computed on: one run's, or every run's when run_id is None."""
    traces = Trace.objects.filter(status__in=METRIC_STATUSES)
    if run_id is not None:
        traces = traces.filter(run_id=run_id)
    return traces.select_related("task").only(
        "task__task_id",
        "task__category",
        "task__difficulty",
        "task__attributes",
        "task__criteria",
        "model_name",
        "temperature",
        "repetition",
        "tool_calls",
        "final_response",
        "error",
        "correct",
        "correctness",
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
