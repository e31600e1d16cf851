"""A study's cells as one pandas frame, the input of `statistics` and `figures`.

One row per cell (task or case x model x temperature) holding the cell's metrics
(`metrics.cell_metrics`), every pair's first diverging step (the paper's divergence
histogram counts pairs, not cells) and the metrics of the odd and even repetitions (the
paper's split-half reliability).

The cell dicts `cells_frame` reads (`cell_record` builds one from traces):

    model, task_id, category, difficulty   str (category/difficulty may be None)
    temperature                            float or None
    attributes                             dict of further case attributes (subtask,
                                           severity, personality, ...); may be empty
    n_runs, n_valid, n_error, tss, ac, ...  as `cell_metrics` returns them (metrics None and
                                           `excluded_reason` set for a cell with fewer
                                           than two valid traces)
    n_graded                               optional: valid traces with a verdict
    n_completed                            optional: runs with a final response, no error
    divergence_steps                       list[int], `per_pair_divergence_steps`
    tss_odd, tss_even, ac_odd, ac_even,
    ac_aligned_odd, ac_aligned_even        optional, `split_half_metrics`
    paper_split_tss_odd, _even             optional, `paper_split_half` (cells of >= 10 runs)

Missing metric keys become NaN, so a frame of hand-made rows is fine for tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from patientagentbench.analysis.metrics import (
    CELL_METRICS,
    TraceData,
    cell_metrics,
    divergence_steps,
)
from patientagentbench.analysis.paper_study import SPLIT_HALF_MIN_RUNS, char_level_tss

__all__ = [
    "ATTRIBUTES_KEY",
    "IDENTITY_COLUMNS",
    "LIST_COLUMNS",
    "NUMERIC_COLUMNS",
    "SPLIT_HALF_METRICS",
    "attribute_columns",
    "cell_record",
    "cells_frame",
    "per_pair_divergence_steps",
    "split_half_metrics",
]

IDENTITY_COLUMNS = ("model", "task_id", "category", "difficulty", "temperature")
# Metrics that split-half reliability compares between odd and even repetitions.
SPLIT_HALF_METRICS = ("tss", "ac", "ac_aligned")
LIST_COLUMNS = ("divergence_steps", "pass_hat_k")
NUMERIC_COLUMNS = (
    "n_runs",
    "n_valid",
    "n_error",
    "n_graded",
    "n_completed",
    # n_scored counts what n_graded does; it stays among the extra columns at the end.
    *(metric for metric in CELL_METRICS if metric not in ("n_scored", *LIST_COLUMNS)),
    *(f"{metric}_{half}" for metric in SPLIT_HALF_METRICS for half in ("odd", "even")),
    "paper_split_tss_odd",
    "paper_split_tss_even",
)
# Why a cell is left out of the analysis (None for an analysed cell).
NOTE_COLUMNS = ("excluded_reason",)
# `frame.attrs[ATTRIBUTES_KEY]` names the columns that came from the cells' attributes.
ATTRIBUTES_KEY = "attribute_columns"
_RESERVED = frozenset((*IDENTITY_COLUMNS, *NUMERIC_COLUMNS, *LIST_COLUMNS, *NOTE_COLUMNS))


def per_pair_divergence_steps(traces: Sequence[TraceData]) -> list[int]:
    """The first 1-based diverging step of every diverging pair of valid traces (j < k order).

    Computed by the same vectorised pass as the cell's divergence point, so the list's mean
    is that divergence point exactly.
    """
    return divergence_steps([trace.calls for trace in traces if trace.error is None])


def split_half_metrics(traces: Sequence[TraceData]) -> dict[str, float | None]:
    """TSS, AC and AC-aligned of the odd (1st, 3rd, ...) and even repetitions, in the order
    given; each half keeps its errored traces so `cell_metrics` leaves them out as usual."""
    halves = {"odd": traces[0::2], "even": traces[1::2]}
    values = {half: cell_metrics(list(members)) for half, members in halves.items()}
    return {
        f"{metric}_{half}": values[half][metric]
        for metric in SPLIT_HALF_METRICS
        for half in ("odd", "even")
    }


def paper_split_half(traces: Sequence[TraceData]) -> dict[str, float | None]:
    """split_half.py: character-level TSS of the even- and odd-indexed runs (0, 2, 4, ... is
    "odd", the 1st, 3rd, ... run), errored runs kept as empty sequences; only for cells of at
    least ten runs."""
    if len(traces) < SPLIT_HALF_MIN_RUNS:
        return {"paper_split_tss_odd": None, "paper_split_tss_even": None}
    names = [[] if t.error is not None else [name for name, _ in t.calls] for t in traces]
    return {
        "paper_split_tss_odd": char_level_tss(names[0::2]),
        "paper_split_tss_even": char_level_tss(names[1::2]),
    }


def cell_record(
    *,
    model: str,
    task_id: str,
    traces: Sequence[TraceData],
    category: str | None = None,
    difficulty: str | None = None,
    temperature: float | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The dict `cells_frame` reads, computed from one cell's traces (in repetition order)."""
    traces = list(traces)
    return {
        "model": model,
        "task_id": task_id,
        "category": category,
        "difficulty": difficulty,
        "temperature": temperature,
        "attributes": dict(attributes or {}),
        **cell_metrics(traces),
        "n_graded": sum(t.error is None and t.correct is not None for t in traces),
        "n_completed": sum(t.error is None and bool(t.final_response) for t in traces),
        "divergence_steps": per_pair_divergence_steps(traces),
        **split_half_metrics(traces),
        **paper_split_half(traces),
    }


def cells_frame(cells: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per cell: identity columns, numeric metrics (NaN when undefined), the list
    columns, and one column per case attribute.

    An attribute named like an identity column (a scenario's `category`) fills that column
    when the cell leaves it empty; one named like a metric gets an `attribute_` prefix.
    """
    rows = [_row(cell) for cell in cells]
    frame = pd.DataFrame(rows)
    attributes = list(
        dict.fromkeys(
            _attribute_column(key)
            for cell in cells
            for key in (cell.get("attributes") or {})
            if key not in IDENTITY_COLUMNS
        )
    )
    extras = [column for column in frame.columns if column not in _RESERVED]
    for column in (*IDENTITY_COLUMNS, *NUMERIC_COLUMNS, *LIST_COLUMNS, *NOTE_COLUMNS):
        if column not in frame:
            frame[column] = pd.Series([None] * len(frame), dtype=object)
    for column in NUMERIC_COLUMNS:
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    frame["temperature"] = pd.to_numeric(frame["temperature"], errors="coerce").astype(float)
    # Rows without a verdict count: the rate was taken over the valid traces.
    graded_unknown = frame["n_graded"].isna() & frame["correct_rate"].notna()
    frame.loc[graded_unknown, "n_graded"] = frame.loc[graded_unknown, "n_valid"]
    frame["divergence_steps"] = [_int_list(steps) for steps in frame["divergence_steps"]]
    frame = frame[[*IDENTITY_COLUMNS, *NUMERIC_COLUMNS, *LIST_COLUMNS, *NOTE_COLUMNS, *extras]]
    frame.attrs[ATTRIBUTES_KEY] = attributes
    return frame


def attribute_columns(frame: pd.DataFrame) -> list[str]:
    """The frame's case-attribute columns (subtask, severity, personality, ...)."""
    return [column for column in frame.attrs.get(ATTRIBUTES_KEY, []) if column in frame]


def _row(cell: Mapping[str, Any]) -> dict[str, Any]:
    row = {key: value for key, value in cell.items() if key != "attributes"}
    for key, value in (cell.get("attributes") or {}).items():
        if key not in IDENTITY_COLUMNS:
            row[_attribute_column(key)] = value
        elif row.get(key) is None:
            row[key] = value
    return row


def _attribute_column(key: str) -> str:
    return f"attribute_{key}" if key in _RESERVED else key


def _int_list(steps: Any) -> list[int]:
    if steps is None or (isinstance(steps, float) and np.isnan(steps)):
        return []
    return [int(step) for step in steps]
