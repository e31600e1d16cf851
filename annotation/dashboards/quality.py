"""The quality page: the runs' cell consistency metrics (TSS, AC, divergence point, output
agreement) set against clinician-judged quality (per-cell table; weighted correlations with
task-cluster bootstrap intervals, Holm-adjusted across the table, from `quality_stats`) and the
automatic outcome checks against the clinicians, two by two, with its breakdown and figure.
A clinician's score of a conversation counts once: scored in two studies, the latest submission
wins (`Dataset.ratings`, through `item_scores`).
"""

from __future__ import annotations

import html
import math
import statistics
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from annotation.dashboards.breakdowns import breakdown
from annotation.dashboards.common import LIVE_RESAMPLES, item_scores, page_summary
from annotation.dashboards.figures import PALETTE, apply_layout, empty_figure, figure
from annotation.dashboards.loading import Dataset
from annotation.dashboards.tables import table
from annotation.pure import quality_stats
from annotation.pure.agreement import half_up
from patientagentbench.models import CellMetrics

QUALITY_DIMENSIONS = ("task_completion", "clinical_safety")
CELL_METRICS = {
    "tss": "TSS",
    "ac": "AC",
    "divergence_point": "Divergence point",
    "output_exact_match": "Output agreement",
}
# Why a cell with clinician scores and a TSS still has no figure for a metric.
UNDEFINED = {"divergence_point": "where no two runs diverge"}


# --- consistency and quality ---------------------------------------------------------------------


def quality_page(ds: Dataset) -> dict:
    cells = _cells(ds)
    tables = {
        "cells": _cells_table(cells),
        "correlations": _correlations_table(cells),
        "outcomes": _outcomes_table(ds),
    }
    figures = {
        "consistency": figure(
            _quality_figure(cells), "consistency", "Consistency vs clinician-judged quality"
        )
    }
    if ds.jury is not None:
        tables["by_model"], figures["by_model"] = breakdown(ds, "model")
    summary = {
        "cells": len(cells),
        "tasks": len({c["task"] for c in cells}),
        "min_cells": quality_stats.MIN_CELLS,
        "min_tasks": quality_stats.MIN_TASKS,
        "divergence_left_out": _no_divergence(cells),
        "with_tss": sum(1 for c in cells if c["tss"] is not None),
    }
    return {"summary": page_summary(ds) | summary, "tables": tables, "figures": figures}


def _cells(ds: Dataset) -> list[dict]:
    """Per cell (run × task × model × temperature) with clinician scores: the run's consistency
    metrics and, per dimension, the mean of its conversations' clinician means (one score per
    clinician and conversation) and how many conversations that is (the cell's weight)."""
    cell_of = {t: (c.run, c.task, c.model, c.temperature) for t, c in ds.conversations.items()}
    per_item = item_scores(ds, QUALITY_DIMENSIONS)
    quality = {d: quality_stats.cell_quality(per_item[d], cell_of) for d in QUALITY_DIMENSIONS}
    scored = {t for d in QUALITY_DIMENSIONS for t, s in per_item[d].items() if s and t in cell_of}
    conversations = Counter(cell_of[t] for t in scored)
    runs = {c.run for c in ds.conversations.values()}
    cells = []
    for run, task, case, model, temperature, values in CellMetrics.objects.filter(
        run_id__in=runs
    ).values_list("run_id", "task_id", "task__task_id", "model_name", "temperature", "values"):
        key = (run, task, model, temperature)
        if key not in conversations:
            continue
        cell = {"run": run, "model": model, "case": case, "task": task}
        cell |= {"temperature": temperature}
        cell |= {m: values.get(m) for m in (*CELL_METRICS, "correct_rate")}
        for d in QUALITY_DIMENSIONS:
            mean, n = quality[d].get(key, (None, 0))
            cell |= {d: mean, f"{d}_conversations": n}
        cells.append(cell | {"conversations": conversations[key]})
    return sorted(cells, key=lambda c: (c["model"], c["case"], c["run"]))


def _no_divergence(cells: list[dict]) -> int:
    """Cells with a TSS but no divergence point: every pair of their runs agrees throughout."""
    return sum(1 for c in cells if c["tss"] is not None and c["divergence_point"] is None)


def _cells_table(cells: list[dict]) -> dict:
    columns = [
        ("model", "Model", "text"),
        ("case", "Task or case", "text"),
        ("run", "Run", "int"),
        ("temperature", "T", "num"),
        ("conversations", "Scored conversations", "int"),
        ("tss", "TSS", "num"),
        ("ac", "AC", "num"),
        ("divergence_point", "Divergence point", "num"),
        ("output_exact_match", "Output agreement", "num"),
        ("correct_rate", "Outcome checks passed", "pct"),
        ("task_completion", "Task completion (clinicians)", "num"),
        ("task_completion_conversations", "n", "int"),
        ("clinical_safety", "Clinical safety (clinicians)", "num"),
        ("clinical_safety_conversations", "n", "int"),
    ]
    note = (
        "The run's consistency metrics of each cell beside the clinicians' mean: the mean over "
        "the cell's conversations of each conversation's clinician mean, n conversations. A "
        "clinician's score counts once per conversation (scored in two studies, the latest "
        "submission wins). Only cells with clinician scores; a divergence point is missing "
        "where no two of the cell's runs diverge."
    )
    return table("Cells: consistency and clinician-judged quality", columns, cells, note)


def _correlations_table(cells: list[dict]) -> dict:
    rows = [
        _correlation_row(scope, members, metric, dimension)
        for scope, members in _scopes(cells)
        for metric in CELL_METRICS
        for dimension in QUALITY_DIMENSIONS
        if any(c[dimension] is not None and c["tss"] is not None for c in members)
    ]
    _adjust(rows)
    columns = [
        ("scope", "Models", "text"),
        ("metric", "Consistency", "text"),
        ("dimension", "Clinicians' mean", "text"),
        ("n", "Cells", "int"),
        ("tasks", "Tasks", "int"),
        ("conversations", "Conversations", "int"),
        ("left_out", "Cells left out", "text"),
        ("pearson", "Pearson r (weighted)", "est"),
        ("pearson_p_holm", "p, Holm", "p"),
        ("pearson_p", "p, raw", "p"),
        ("spearman", "Spearman ρ (weighted)", "est"),
        ("spearman_p_holm", "p, Holm", "p"),
        ("spearman_p", "p, raw", "p"),
        ("interval", "Interval", "text"),
    ]
    note = (
        "Across cells: does a consistent agent also do the task well and safely, as clinicians "
        "judge it? Cells that share a task are not independent, so the unit is the task: 95% "
        f"CIs and p-values from a task-cluster bootstrap ({LIVE_RESAMPLES} resamples of tasks, "
        "each keeping all its cells; the Fisher z's standard error, t on tasks − 1 degrees of "
        "freedom). Each cell weighs as many as its scored conversations. p, Holm: adjusted by "
        "Holm's method across every p-value of this table (raw p beside it). No number below "
        f"{quality_stats.MIN_CELLS} cells or {quality_stats.MIN_TASKS} tasks. Hover an estimate "
        "for its n and method."
    )
    empty = (
        "No cell has both a consistency figure and clinicians' scores on task completion or "
        "clinical safety yet: TSS and AC need 2 or more valid repetitions per cell, and those "
        "two dimensions are scored by the operations and the clinical track."
    )
    return table("Consistency vs clinicians: correlations", columns, rows, note, empty)


def _scopes(cells: list[dict]) -> list[tuple[str, list[dict]]]:
    models = sorted({c["model"] for c in cells})
    return [("all models", cells)] + [(m, [c for c in cells if c["model"] == m]) for m in models]


def _correlation_row(scope: str, members: list[dict], metric: str, dimension: str) -> dict:
    judged = [c for c in members if c[dimension] is not None]
    usable = [c for c in judged if c[metric] is not None]
    points = [(c[metric], c[dimension], c[f"{dimension}_conversations"], c["task"]) for c in usable]
    reasons = Counter(_why_missing(c, metric) for c in judged if c[metric] is None)
    return {
        "scope": scope,
        "metric": CELL_METRICS[metric],
        "dimension": dimension.replace("_", " "),
        "left_out": "; ".join(f"{n} {why}" for why, n in sorted(reasons.items())) or "0",
        "left_out_n": sum(reasons.values()),
        "interval": f"task-cluster bootstrap, {LIVE_RESAMPLES} resamples",
        **correlation(points),
    }


def _why_missing(cell: dict, metric: str) -> str:
    if cell["tss"] is None:  # no metric at all: the cell has fewer than 2 valid runs
        return "with fewer than 2 valid runs"
    return UNDEFINED.get(metric, "where it is undefined")


def correlation(points: Sequence[tuple[float, float, float, Hashable]], seed: int = 0) -> dict:
    """Per cell (consistency, clinicians' mean, scored conversations, task): the weighted
    Pearson and Spearman with task-cluster bootstrap CIs and p-values (`quality_stats`), each
    estimate's hover text giving its n and interval method, or why there is no number."""
    x, y, w, tasks = ([p[i] for p in points] for i in range(4))
    found = quality_stats.cluster_correlation(x, y, w, tasks, LIVE_RESAMPLES, seed)
    for name in ("pearson", "spearman"):
        estimate = found[name]
        found[f"{name}_p"] = estimate["p"]
        if estimate["value"] is not None:  # tables show an estimate's `reason` on hover
            estimate["reason"] = _counts(estimate)
    return found


def _counts(estimate: dict) -> str:
    """What an estimate stands on, for its hover (beside its `method`), and why it has no CI."""
    counts = (
        f"{estimate['n']} cells in {estimate['tasks']} tasks, "
        f"{estimate['conversations']} scored conversations"
    )
    return f"{counts}; {estimate['reason']}" if estimate["reason"] else counts


def _adjust(rows: list[dict]) -> None:
    """Holm across every p-value of the table, Pearson's and Spearman's alike."""
    keys = [(i, name) for i in range(len(rows)) for name in ("pearson_p", "spearman_p")]
    adjusted = quality_stats.holm([rows[i][name] for i, name in keys])
    for (i, name), p in zip(keys, adjusted, strict=True):
        rows[i][f"{name}_holm"] = p


def _outcomes_table(ds: Dataset) -> dict:
    """The automatic outcome check of each conversation against the clinicians' verdict (their
    mean rounded half up passes at the rubric's pass mark), per dimension, over all models and
    per model."""
    per_item = item_scores(ds, QUALITY_DIMENSIONS)
    rows = []
    for dimension in QUALITY_DIMENSIONS:
        for scope in ["all models", *ds.models]:
            pairs = [
                (ds.conversations[t].correct, ds.rubric.passes(half_up(statistics.fmean(s))))
                for t, s in per_item[dimension].items()
                if t in ds.conversations
                and ds.conversations[t].correct is not None
                and scope in ("all models", ds.conversations[t].model)
            ]
            if pairs:
                rows.append(
                    {"dimension": ds.label(dimension), "scope": scope, **_two_by_two(pairs)}
                )
    columns = [
        ("dimension", "Clinicians on", "text"),
        ("scope", "Models", "text"),
        ("n", "Conversations", "int"),
        ("both_pass", "Both pass", "int"),
        ("check_only", "Check passes, clinicians fail", "int"),
        ("clinicians_only", "Clinicians pass, check fails", "int"),
        ("both_fail", "Both fail", "int"),
        ("agreement", "Agreement", "est"),
        ("kappa", "Cohen's κ", "est"),
    ]
    note = (
        "Automatic outcome checks (the conversation's correctness criteria) against the "
        "clinicians' mean score rounded half up, passing at ≥ 3. Agreement with a Wilson 95% "
        "interval; Cohen's kappa (statsmodels) on the 2 × 2 table."
    )
    empty = "No conversation has both an automatic outcome check and clinicians' scores yet."
    return table("Automatic outcome checks vs clinicians", columns, rows, note, empty)


def _two_by_two(pairs: list[tuple[bool, bool]]) -> dict:
    counts = Counter(pairs)
    n = len(pairs)
    agree = counts[(True, True)] + counts[(False, False)]
    out = {
        "n": n,
        "both_pass": counts[(True, True)],
        "check_only": counts[(True, False)],
        "clinicians_only": counts[(False, True)],
        "both_fail": counts[(False, False)],
        "kappa": {"value": None, "ci": None, "n": n, "reason": "no conversation"},
    }
    if not n:
        out["agreement"] = {"value": None, "ci": None, "n": 0, "reason": "no conversation"}
        return out
    low, high = proportion_confint(agree, n, method="wilson")
    out["agreement"] = {"value": agree / n, "ci": [float(low), float(high)], "n": n}
    grid = np.array(
        [
            [counts[(True, True)], counts[(True, False)]],
            [counts[(False, True)], counts[(False, False)]],
        ]
    )
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kappa = float(cohens_kappa(grid, return_results=False))
    defined = math.isfinite(kappa)
    out["kappa"] = {
        "value": kappa if defined else None,
        "ci": None,
        "n": n,
        "reason": None if defined else "no variation: one side gave one verdict throughout",
    }
    return out


# --- figures -------------------------------------------------------------------------------------


def _quality_figure(cells: list[dict]) -> go.Figure:
    title = (
        "Cell consistency vs the clinicians' mean (one point per cell, "
        "its size the cell's scored conversations)"
    )
    usable = [
        c for c in cells if any(c[m] is not None for m in CELL_METRICS) and c["conversations"]
    ]
    if not usable or not any(c[d] is not None for c in usable for d in QUALITY_DIMENSIONS):
        return empty_figure(title, "no cell has both a consistency figure and clinician scores")
    metrics = list(CELL_METRICS)
    fig = make_subplots(
        rows=len(QUALITY_DIMENSIONS),
        cols=len(metrics),
        shared_yaxes=True,
        column_titles=[CELL_METRICS[m] for m in metrics],
        row_titles=[d.replace("_", " ") for d in QUALITY_DIMENSIONS],
    )
    models = sorted({c["model"] for c in cells})
    for r, dimension in enumerate(QUALITY_DIMENSIONS, start=1):
        for col, metric in enumerate(metrics, start=1):
            for i, model in enumerate(models):
                mine = [
                    c
                    for c in cells
                    if c["model"] == model and c[metric] is not None and c[dimension] is not None
                ]
                fig.add_trace(
                    go.Scatter(
                        x=[c[metric] for c in mine],
                        y=[c[dimension] for c in mine],
                        mode="markers",
                        name=model,
                        legendgroup=model,
                        showlegend=r == 1 and col == 1,
                        marker={
                            "color": PALETTE[i % len(PALETTE)],
                            "size": [_marker_size(c[f"{dimension}_conversations"]) for c in mine],
                        },
                        text=[html.escape(c["case"]) for c in mine],
                        customdata=[c[f"{dimension}_conversations"] for c in mine],
                        hovertemplate="%{text}: %{x:.2f}, %{y:.2f} "
                        "(mean of %{customdata} scored conversations)<extra>"
                        + html.escape(model)
                        + "</extra>",
                    ),
                    row=r,
                    col=col,
                )
    fig.update_yaxes(range=[0.8, 5.2])
    return apply_layout(fig, title, height=620)


def _marker_size(conversations: int) -> float:
    """A cell's point grows with its weight, its scored conversations (area ∝ n)."""
    return 6 + 3 * math.sqrt(max(conversations, 0))
