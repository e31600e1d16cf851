"""A run's (or every trace's) analysis: cells → frame → statistics, tables and figures."""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property

import pandas as pd
from django.core.cache import cache
from django.db.models import Count, Max

from patientagentbench.analysis import figures, statistics
from patientagentbench.analysis.study import cell_record, cells_frame
from patientagentbench.metrics_store import run_traces
from patientagentbench.scoring import trace_data
from patientagentbench.suites import SUITES_DIR

PUBLISHED_SUITES = {"office-19"}
FIGURE_TITLES = {
    "model_comparison": "Model comparison (TSS and AC, 95% CI)",
    "by_category": "Consistency by category",
    "by_difficulty": "Consistency by difficulty",
    "divergence_histogram": "First divergence step",
    "tss_vs_correctness": "TSS vs correctness",
    "model_category_heatmap": "Model × category (TSS)",
    "unique_sequences_per_model": "Unique sequences per model",
}


def study_cells(traces) -> list[dict]:
    """One record per (task id, model, temperature), traces in repetition order."""
    groups: dict[tuple, list] = defaultdict(list)
    for trace in traces:
        groups[(trace.task.task_id, trace.model_name, trace.temperature)].append(trace)
    records = []
    for (task_id, model, temperature), members in sorted(groups.items(), key=_cell_order):
        members.sort(key=lambda t: t.repetition)
        task = members[0].task
        records.append(
            cell_record(
                model=model,
                task_id=task_id,
                traces=[trace_data(t) for t in members],
                category=task.category or None,
                difficulty=task.difficulty or None,
                temperature=temperature,
                attributes=_breakdown_attributes(task.attributes),
            )
        )
    return records


BREAKDOWN_ATTRIBUTES = ("subtask", "severity", "personality", "complexity", "care_preference")


def _breakdown_attributes(attributes: dict) -> dict:
    """Case attributes a researcher breaks results down by (flat strings only)."""
    return {k: attributes[k] for k in BREAKDOWN_ATTRIBUTES if isinstance(attributes.get(k), str)}


def _cell_order(item):
    (task_id, model, temperature), _ = item
    return (task_id, model, temperature if temperature is not None else -1.0)


class Study:
    """Everything the report page and `analysis_report` show, each part computed once."""

    def __init__(self, cells: list[dict], suite_name: str = ""):
        self.cells = cells
        self.suite_name = suite_name
        self.published = (
            figures.load_published(SUITES_DIR) if suite_name in PUBLISHED_SUITES else None
        )

    @cached_property
    def frame(self) -> pd.DataFrame:
        return cells_frame(self.cells)

    @cached_property
    def statistics(self) -> dict:
        headline = (self.published or {}).get("headline")
        return statistics.full_report(self.frame, published_headline=headline)

    @cached_property
    def tables(self) -> dict[str, pd.DataFrame]:
        return statistics.report_tables(self.frame) if len(self.frame) else {}

    @cached_property
    def figures(self) -> dict:
        return figures.all_figures(self.frame, self.published) if len(self.frame) else {}

    def compute_all(self) -> Study:
        for part in ("statistics", "tables", "figures"):
            getattr(self, part)  # cached properties: compute now, so the cache holds results
        return self


def study_for(run=None) -> Study:
    traces = run_traces(run.pk if run is not None else None)
    return Study(study_cells(traces), run.suite.name if run is not None else "")


def cached_study(run) -> Study:
    """Recomputed only when the run's traces change (a new trace ends, an import lands)."""
    stamp = run.traces.aggregate(n=Count("pk"), last=Max("finished_at"))
    key = f"study:{run.pk}:{run.status}:{stamp['n']}:{stamp['last']}"
    study = cache.get(key)
    if study is None:
        study = study_for(run).compute_all()
        cache.set(key, study, timeout=3600)
    return study


def table_view(frame: pd.DataFrame, digits: int = 3) -> dict:
    """A DataFrame as header + rows of display strings (escaping is the template's job)."""
    return {
        "columns": [str(c) for c in frame.columns],
        "rows": [[_display(v, digits) for v in row] for row in frame.itertuples(index=False)],
    }


def _display(value, digits: int) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, list | tuple):
        return ", ".join(_display(v, digits) for v in value)
    return str(value)


def flatten(value, prefix: str = "", depth: int = 4) -> list[tuple[str, str]]:
    """Nested test results as (path, value) rows for a compact table."""
    if isinstance(value, dict) and depth:
        rows = []
        for key, item in value.items():
            rows += flatten(item, f"{prefix}.{key}" if prefix else str(key), depth - 1)
        return rows
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [(prefix, f"{len(value)} rows (see JSON)")]
    return [(prefix, _display(value, 4))]
