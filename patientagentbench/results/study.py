"""A run's (or every trace's) analysis: cells → frame → statistics, tables and figures.

`Study` computes; `run_analysis` is what pages read: the same results as plain data (JSON-ready
statistics, tables as columns and rows, figures as rendered fragments and plotly JSON), cached
under a key that changes whenever the run's traces do. A run's analysis is computed when the
run finishes (`warm_run_analysis`), so its first visitor does not wait for it.
"""

from __future__ import annotations

from functools import cached_property

import pandas as pd
from django.db.models import Count, Max
from django.utils.text import slugify

from patientagentbench.analysis import figures, statistics
from patientagentbench.analysis.correctness import PASS_RULES
from patientagentbench.analysis.headline import NOT_ENOUGH
from patientagentbench.analysis.study import cell_record, cells_frame
from patientagentbench.cache import memo
from patientagentbench.cases.attribute_labels import attribute_label, value_label
from patientagentbench.models import Run
from patientagentbench.results.cells import cells_of, run_traces
from patientagentbench.results.scoring import DEFAULT_MALFORMED, MALFORMED_MODES, trace_data
from patientagentbench.suites.install import SUITES_DIR

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
BREAKDOWN_ATTRIBUTES = ("subtask", "severity", "personality", "complexity", "care_preference")
ANALYSIS_TTL_S = 7 * 24 * 3600


def study_cells(traces, malformed: str = DEFAULT_MALFORMED) -> list[dict]:
    """One record per cell, traces in repetition order."""
    records = []
    for (task_id, model, temperature), members in cells_of(traces):
        task = members[0].task
        records.append(
            cell_record(
                model=model,
                task_id=task_id,
                traces=[trace_data(t, malformed) for t in members],
                category=task.category or None,
                difficulty=task.difficulty or None,
                temperature=temperature,
                attributes=_breakdown_attributes(task.attributes),
            )
        )
    return records


def _breakdown_attributes(attributes: dict) -> dict:
    """Case attributes a researcher breaks results down by (flat strings only)."""
    return {k: attributes[k] for k in BREAKDOWN_ATTRIBUTES if isinstance(attributes.get(k), str)}


class Study:
    """Everything the report page and `analysis_report` show, each part computed once."""

    def __init__(self, cells: list[dict], suite_name: str = "", settings: dict | None = None):
        self.cells = cells
        self.suite_name = suite_name
        self.settings = settings or {}
        self.published = (
            figures.load_published(SUITES_DIR) if suite_name in PUBLISHED_SUITES else None
        )

    @cached_property
    def frame(self) -> pd.DataFrame:
        return cells_frame(self.cells)

    @cached_property
    def statistics(self) -> dict:
        headline = (self.published or {}).get("headline")
        return statistics.full_report(
            self.frame, published_headline=headline, settings=self.settings
        )

    @cached_property
    def tables(self) -> dict[str, pd.DataFrame]:
        return statistics.report_tables(self.frame) if self._has_analysed_cells else {}

    @cached_property
    def figures(self) -> dict:
        return figures.all_figures(self.frame, self.published) if self._has_analysed_cells else {}

    @property
    def _has_analysed_cells(self) -> bool:
        return len(self.frame) > 0 and len(statistics.analysed_cells(self.frame)) > 0


def study_for(run=None, malformed: str = DEFAULT_MALFORMED) -> Study:
    traces = list(run_traces(run.pk if run is not None else None))
    return Study(
        study_cells(traces, malformed),
        run.suite.name if run is not None else "",
        analysis_settings(traces, malformed),
    )


def analysis_settings(traces, malformed: str) -> dict:
    """What the report states about how it was computed."""
    rules = sorted(
        {(t.task.criteria or {}).get("pass_rule", "all_checks") for t in traces if t.task.criteria}
    )
    return {
        "malformed": malformed,
        "malformed_meaning": MALFORMED_MODES[malformed],
        "pass_rules": {rule: PASS_RULES[rule] for rule in rules},
    }


# --- the cached analysis pages read ---------------------------------------------------------


def run_analysis(run: Run, malformed: str = DEFAULT_MALFORMED) -> dict:
    """The run's analysis as plain data; computed only when the run's traces have changed."""
    return memo(
        f"analysis:{run.pk}:{malformed}",
        analysis_key(run, malformed),
        lambda: analysis_data(run, study_for(run, malformed)),
        timeout=ANALYSIS_TTL_S,
    )


def warm_run_analysis(run_id: int) -> None:
    run_analysis(Run.objects.select_related("suite").get(pk=run_id))


def analysis_key(run: Run, malformed: str = DEFAULT_MALFORMED) -> str:
    """Changes when a trace ends or an import lands; no spaces (memcached-safe)."""
    stamp = run.traces.aggregate(n=Count("pk"), last=Max("finished_at"))
    last = stamp["last"].timestamp() if stamp["last"] else 0
    created = run.created_at.timestamp() if run.created_at else 0
    return f"analysis:v3:{malformed}:{run.pk}:{created}:{run.status}:{stamp['n']}:{last}"


def analysis_data(run: Run, study: Study) -> dict:
    return {
        "n_cells": len(study.cells),
        "statistics": study.statistics,
        "tables": {name: table_data(frame) for name, frame in study.tables.items()},
        "figure_divs": {
            name: figures.figure_html(fig, div_id=f"fig-{name}", filename=file_stem(run, name))
            for name, fig in study.figures.items()
        },
        "figure_json": {name: fig.to_json() for name, fig in study.figures.items()},
        "published": study.published,
    }


def table_data(frame: pd.DataFrame) -> dict:
    return {"columns": [str(c) for c in frame.columns], "rows": frame.values.tolist()}


def table_frame(table: dict) -> pd.DataFrame:
    return pd.DataFrame(table["rows"], columns=table["columns"])


def file_stem(run: Run, name: str) -> str:
    return f"run{run.pk}-{slugify(name)}"


# --- display helpers --------------------------------------------------------------------------


TABLE_TITLES = {
    "cells": "Every cell",
    "model": "Per model",
    "category": "Per task category",
    "difficulty": "Per difficulty",
    "task": "Per task",
    "model_category": "Per model and category",
    "model_temperature": "Per model and temperature",
}
ATTRIBUTE_TABLE = "attribute_"  # statistics.report_tables: one table per case attribute


def table_title(name: str) -> str:
    """A table's name as a person reads it ("attribute_care_preference" -> "Per care
    preference"); the name itself stays in download links."""
    if name.startswith(ATTRIBUTE_TABLE):
        return f"Per {attribute_label(name[len(ATTRIBUTE_TABLE) :]).lower()}"
    return TABLE_TITLES.get(name, name.replace("_", " "))


def table_view(table: dict, digits: int = 3) -> dict:
    """A table as header + rows of display strings (escaping is the template's job): counts
    as whole numbers, other numbers to `digits` places, headers in words. An interval bound the
    table withheld (`statistics.group_table`: zero width, or too few cells) says why."""
    columns = table["columns"]
    counts = [_is_count(column) for column in columns]
    bounds = [_is_interval_bound(column) for column in columns]
    return {
        "columns": [column.replace("_", " ") for column in columns],
        "rows": [
            [
                _case_value(column, v)
                if column in CASE_VALUE_COLUMNS and isinstance(v, str)
                else _display(v, 0 if count else digits, NOT_ENOUGH if bound else "—")
                for column, v, count, bound in zip(columns, row, counts, bounds, strict=True)
            ]
            for row in table["rows"]
        ],
    }


# Columns holding a case's stored values ("health_concern", "in_person"): shown in words.
CASE_VALUE_COLUMNS = frozenset(("category", "difficulty", *BREAKDOWN_ATTRIBUTES))


def _case_value(column: str, value: str) -> str:
    return value_label(column, value)


def _is_interval_bound(column: str) -> bool:
    return column.endswith(("_ci_low", "_ci_high"))


def _is_count(column: str) -> bool:
    return column.startswith("n_") or column.endswith(("_traces", "_count"))


def _display(value, digits: int, missing: str = "—") -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return missing
    if isinstance(value, float):
        return f"{value:,.0f}" if digits == 0 else f"{value:.{digits}f}"
    if isinstance(value, list | tuple):
        return ", ".join(_display(v, digits) for v in value)
    return str(value)
