"""The quality page: the runs' cell consistency metrics (TSS, AC, divergence point) set against
clinician-judged quality (per-cell table, correlations with paired bootstrap intervals) and the
automatic outcome checks against the clinicians, two by two, with its breakdown and figure.
"""

from __future__ import annotations

import html
import math
import statistics
import warnings
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from annotation.agreement import half_up
from annotation.dashboards.breakdowns import breakdown
from annotation.dashboards.common import LIVE_RESAMPLES, item_scores, page_summary
from annotation.dashboards.figures import PALETTE, apply_layout, empty_figure, figure
from annotation.dashboards.loading import Dataset
from annotation.dashboards.tables import table
from patientagentbench.models import CellMetrics

QUALITY_DIMENSIONS = ("task_completion", "clinical_safety")
CELL_METRICS = {"tss": "TSS", "ac": "AC", "divergence_point": "Divergence point"}


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
    return {
        "summary": page_summary(ds) | {"cells": len(cells)},
        "tables": tables,
        "figures": figures,
    }


def _cells(ds: Dataset) -> list[dict]:
    """Per cell (run × task × model × temperature) with clinician scores: the run's consistency
    metrics and the mean of the clinicians' current scores on its conversations."""
    means: dict[tuple, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    traces: dict[tuple, set[int]] = defaultdict(set)
    for score in ds.scores:
        c = ds.conversations.get(score.trace)
        if c is not None and score.dimension in QUALITY_DIMENSIONS and score.score is not None:
            key = (c.run, c.task, c.model, c.temperature)
            means[key][score.dimension].append(score.score)
            traces[key].add(score.trace)
    runs = {c.run for c in ds.conversations.values()}
    cells = []
    for run, task, case, model, temperature, values in CellMetrics.objects.filter(
        run_id__in=runs
    ).values_list("run_id", "task_id", "task__task_id", "model_name", "temperature", "values"):
        key = (run, task, model, temperature)
        if key not in means:
            continue
        cell = {"run": run, "model": model, "case": case, "temperature": temperature}
        cell |= {m: values.get(m) for m in (*CELL_METRICS, "correct_rate")}
        cell |= {d: _mean(means[key].get(d)) for d in QUALITY_DIMENSIONS}
        cells.append(cell | {"conversations": len(traces[key])})
    return sorted(cells, key=lambda c: (c["model"], c["case"], c["run"]))


def _mean(values: list[int] | None) -> float | None:
    return statistics.fmean(values) if values else None


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
        ("correct_rate", "Outcome checks passed", "pct"),
        ("task_completion", "Task completion (clinicians)", "num"),
        ("clinical_safety", "Clinical safety (clinicians)", "num"),
    ]
    note = (
        "The run's consistency metrics of each cell beside the mean of the clinicians' current "
        "scores on its conversations; only cells with clinician scores."
    )
    return table("Cells: consistency and clinician-judged quality", columns, cells, note)


def _correlations_table(cells: list[dict]) -> dict:
    rows = []
    scopes = [("all models", cells)] + [
        (model, [c for c in cells if c["model"] == model])
        for model in sorted({c["model"] for c in cells})
    ]
    for scope, members in scopes:
        for metric, metric_label in CELL_METRICS.items():
            for dimension in QUALITY_DIMENSIONS:
                pairs = [
                    (c[metric], c[dimension])
                    for c in members
                    if c[metric] is not None and c[dimension] is not None
                ]
                if pairs:
                    rows.append(
                        {
                            "scope": scope,
                            "metric": metric_label,
                            "dimension": dimension.replace("_", " "),
                            **correlation(pairs),
                        }
                    )
    columns = [
        ("scope", "Models", "text"),
        ("metric", "Consistency", "text"),
        ("dimension", "Clinicians' mean", "text"),
        ("n", "Cells", "int"),
        ("pearson", "Pearson r", "est"),
        ("pearson_p", "p", "p"),
        ("spearman", "Spearman ρ", "est"),
        ("spearman_p", "p", "p"),
    ]
    note = (
        "Across cells: does a consistent agent also do the task well and safely, as clinicians "
        f"judge it? Paired bootstrap 95% CIs resampling cells ({LIVE_RESAMPLES} resamples, "
        "scipy); p-values from scipy.stats.pearsonr and spearmanr."
    )
    empty = (
        "No cell has both a consistency figure and clinicians' scores on task completion or "
        "clinical safety yet: TSS and AC need 2 or more repetitions per cell, and those two "
        "dimensions are scored by the operations and the clinical track."
    )
    return table("Consistency vs clinicians: correlations", columns, rows, note, empty)


def correlation(pairs: Sequence[tuple[float, float]], seed: int = 0) -> dict:
    """Pearson and Spearman with paired bootstrap CIs (scipy), or the reason there are none."""
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    out: dict[str, Any] = {"n": len(x), "pearson_p": None, "spearman_p": None}
    reason = None
    if len(x) < 3:
        reason = "fewer than 3 cells"
    elif np.ptp(x) == 0 or np.ptp(y) == 0:
        reason = "no variation on one side"
    if reason:
        none = {"value": None, "ci": None, "n": len(x), "reason": reason}
        return out | {"pearson": none, "spearman": dict(none)}
    pearson, spearman = stats.pearsonr(x, y), stats.spearmanr(x, y)
    out |= {"pearson_p": float(pearson.pvalue), "spearman_p": float(spearman.pvalue)}
    for name, value, statistic in (
        ("pearson", pearson.statistic, _pearson),
        ("spearman", spearman.statistic, _spearman),
    ):
        out[name] = {"value": float(value), "ci": _paired_ci(x, y, statistic, seed), "n": len(x)}
        out[name]["reason"] = None if out[name]["ci"] else "no interval: too few distinct cells"
    return out


def _pearson(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    dx = x - x.mean(axis=axis, keepdims=True)
    dy = y - y.mean(axis=axis, keepdims=True)
    spread = np.sqrt((dx**2).sum(axis=axis) * (dy**2).sum(axis=axis))
    with np.errstate(all="ignore"):
        return np.where(spread > 1e-12, (dx * dy).sum(axis=axis) / spread, np.nan)


def _spearman(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return _pearson(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis=axis)


def _paired_ci(x, y, statistic, seed: int) -> list[float] | None:
    """Percentile interval of a paired bootstrap (scipy) resampling cells. A resample can
    draw cells that do not vary, where a correlation is undefined; those are left out, as in
    `agreement`, unless they are most of them."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (x, y),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=LIVE_RESAMPLES,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    distribution = result.bootstrap_distribution
    defined = distribution[np.isfinite(distribution)]
    if len(defined) < len(distribution) / 2:
        return None
    low, high = np.quantile(defined, [0.025, 0.975])
    return [float(low), float(high)]


def _outcomes_table(ds: Dataset) -> dict:
    """The automatic outcome check of each conversation against the clinicians' verdict (their
    mean rounded half up passes at ≥ 3), per dimension, over all models and per model."""
    per_item = item_scores(ds, QUALITY_DIMENSIONS)
    rows = []
    for dimension in QUALITY_DIMENSIONS:
        for scope in ["all models", *ds.models]:
            pairs = [
                (ds.conversations[t].correct, half_up(statistics.fmean(s)) >= 3)
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
    title = "Cell consistency vs the clinicians' mean (one point per cell)"
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
                        marker={"color": PALETTE[i % len(PALETTE)]},
                        text=[html.escape(c["case"]) for c in mine],
                        hovertemplate="%{text}: %{x:.2f}, %{y:.2f}<extra>"
                        + html.escape(model)
                        + "</extra>",
                    ),
                    row=r,
                    col=col,
                )
    fig.update_yaxes(range=[0.8, 5.2])
    return apply_layout(fig, title, height=620)
