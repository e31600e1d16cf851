"""Consistency vs clinician-judged quality across cells, at the right unit (pure: plain data in,
plain data out; DESIGN §7 "Consistency vs quality").

A cell (model × task × temperature of a run, repeated N times) has consistency figures (TSS,
AC, divergence point, output agreement) and the clinicians' mean quality on its conversations.
Cells that share a task share that task's difficulty on both sides, so they are not
independent: treating them as if they were makes a null correlation look significant far more
often than 5% (benchmarks/quality_null_check.py prints by how much). Here:

- **Unit.** A task-cluster bootstrap: each resample draws tasks with replacement and keeps every
  cell of a drawn task. The correlation's Fisher z gets its standard error from those resamples,
  times √(G/(G − 1)) for G tasks (resampling G clusters understates a variance by (G − 1)/G);
  the 95% CI is tanh(z ± t·se) and the p-value 2·P(T > |z|/se), Student's t on G − 1 degrees
  of freedom (few tasks: the t keeps the test near its level). A CI excludes 0 exactly when
  p < .05.
- **Weights.** A cell counts by its number of scored conversations: weighted Pearson; Spearman
  is the weighted Pearson of weighted mid-ranks (equal weights: the usual Spearman).
- **Evidence.** At least `MIN_CELLS` cells in at least `MIN_TASKS` tasks, and variation on both
  sides, before any number is given; otherwise "not enough evidence (…)".
- **Multiplicity.** Holm's step-down adjustment across every p-value of a table (`holm`):
  it controls the chance of any false positive whatever the dependence between the tests
  (Pearson and Spearman of the same cells, overlapping model scopes, are strongly dependent).
- **Ratings.** `cell_quality` takes each conversation's clinicians' scores already de-duplicated
  (one per clinician) and gives a cell the mean of its conversations' means, with their count.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

MIN_CELLS = 10
MIN_TASKS = 5
CONFIDENCE = 0.95
# Fisher z is infinite at |r| = 1: a perfect resample is held just inside.
_R_LIMIT = 1 - 1e-9

__all__ = [
    "MIN_CELLS",
    "MIN_TASKS",
    "cell_quality",
    "cluster_correlation",
    "evidence_shortfall",
    "holm",
    "method_text",
    "naive_pearson_p",
    "weighted_pearson",
    "weighted_spearman",
]


# --- cells from conversations ---------------------------------------------------------------------


def cell_quality(
    conversation_scores: Mapping[Hashable, Sequence[float]],
    cell_of: Mapping[Hashable, Hashable],
) -> dict[Hashable, tuple[float, int]]:
    """cell → (mean of its conversations' clinician means, number of scored conversations).
    `conversation_scores` holds one score per clinician per conversation (de-duplicated by
    the caller: the latest submission wins); a conversation without a cell is left out."""
    means: dict[Hashable, list[float]] = defaultdict(list)
    for conversation, scores in conversation_scores.items():
        if scores and conversation in cell_of:
            means[cell_of[conversation]].append(statistics.fmean(scores))
    return {cell: (statistics.fmean(values), len(values)) for cell, values in means.items()}


# --- weighted correlations, many weightings at once ---------------------------------------------


def weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pearson r of fixed x, y under each row of `weights` (shape (…, n)); NaN where one side
    does not vary under that weighting."""
    total = weights.sum(axis=-1, keepdims=True)
    dx = x - (weights * x).sum(axis=-1, keepdims=True) / total
    dy = y - (weights * y).sum(axis=-1, keepdims=True) / total
    sxy = (weights * dx * dy).sum(axis=-1)
    spread = np.sqrt((weights * dx**2).sum(axis=-1) * (weights * dy**2).sum(axis=-1))
    scale = np.sqrt((weights * x**2).sum(axis=-1) * (weights * y**2).sum(axis=-1)) + 1e-300
    with np.errstate(all="ignore"):
        return np.where(spread > 1e-12 * scale, sxy / spread, np.nan)


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted Pearson of weighted mid-ranks: a cell of weight w is w tied observations."""
    return _pearson_of_ranks(_mid_ranks(x, weights), _mid_ranks(y, weights), weights)


def _pearson_of_ranks(rx: np.ndarray, ry: np.ndarray, weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=-1, keepdims=True)
    dx = rx - (weights * rx).sum(axis=-1, keepdims=True) / total
    dy = ry - (weights * ry).sum(axis=-1, keepdims=True) / total
    spread = np.sqrt((weights * dx**2).sum(axis=-1) * (weights * dy**2).sum(axis=-1))
    with np.errstate(all="ignore"):
        return np.where(spread > 1e-9, (weights * dx * dy).sum(axis=-1) / spread, np.nan)


def _mid_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each value's weight below it plus half the weight tied with it, per row of weights."""
    distinct, group = np.unique(values, return_inverse=True)
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(len(distinct)))
    tied = np.add.reduceat(weights[..., order], starts, axis=-1)  # (…, distinct values)
    below = np.cumsum(tied, axis=-1) - tied
    return (below + tied / 2)[..., group]


# --- the task-cluster bootstrap ----------------------------------------------------------------


def evidence_shortfall(n_cells: int, n_tasks: int) -> str | None:
    """Why a correlation is not shown yet, or None when there are enough cells and tasks."""
    if n_cells < MIN_CELLS:
        return f"not enough evidence ({n_cells} cells, {n_tasks} tasks; {MIN_CELLS} needed)"
    if n_tasks < MIN_TASKS:
        return f"not enough evidence ({n_cells} cells, {n_tasks} tasks; {MIN_TASKS} tasks needed)"
    return None


def method_text(n_resamples: int) -> str:
    return f"task-cluster bootstrap ({n_resamples:,} resamples of tasks), Fisher z ± t(tasks − 1)"


def cluster_correlation(
    x: Sequence[float],
    y: Sequence[float],
    weights: Sequence[float],
    clusters: Sequence[Hashable],
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Weighted Pearson and Spearman across cells with task-cluster bootstrap CIs and p-values,
    each estimate carrying its n (cells, tasks, conversations) and method; or why there is none.
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ws = np.asarray(weights, dtype=float)
    labels, task_of = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    counts = {"n": len(xs), "tasks": len(labels), "conversations": int(round(ws.sum()))}
    method = method_text(n_resamples)
    reason = evidence_shortfall(len(xs), len(labels))
    if reason is None and (np.ptp(xs) == 0 or np.ptp(ys) == 0):
        reason = "not enough evidence: no variation on one side"
    if reason:
        none = counts | {"value": None, "ci": None, "p": None, "method": method, "reason": reason}
        return counts | {"method": method, "pearson": none, "spearman": dict(none)}
    draws = _task_draws(len(labels), n_resamples, seed)[:, task_of] * ws  # (resamples, cells)
    out: dict[str, Any] = counts | {"method": method}
    for name, statistic in (("pearson", weighted_pearson), ("spearman", weighted_spearman)):
        value = float(statistic(xs, ys, ws))
        out[name] = counts | {"value": value, "method": method, "reason": None}
        out[name] |= _fisher_interval(value, statistic(xs, ys, draws), len(labels))
    return out


def _task_draws(n_tasks: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each task is drawn in each resample (tasks with replacement, n_tasks each)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_tasks, np.full(n_tasks, 1 / n_tasks), size=n_resamples).astype(float)


def _fisher_interval(value: float, resampled: np.ndarray, n_tasks: int) -> dict[str, Any]:
    """CI and two-sided p of r = 0 from the resamples' spread of Fisher z, on t(tasks − 1).
    A resample whose cells do not vary has no r and is left out, unless most are."""
    defined = resampled[np.isfinite(resampled)]
    if len(defined) < max(len(resampled) / 2, 2):
        return {"ci": None, "p": None, "reason": "no interval: most resamples do not vary"}
    spread = float(np.std(np.arctanh(np.clip(defined, -_R_LIMIT, _R_LIMIT)), ddof=1))
    # Resampling G tasks understates the variance by (G − 1)/G (as for a mean of G clusters).
    spread *= math.sqrt(n_tasks / (n_tasks - 1))
    if not spread > 0:
        return {"ci": None, "p": None, "reason": "no interval: the resamples do not vary"}
    z = math.atanh(max(-_R_LIMIT, min(_R_LIMIT, value)))
    df = n_tasks - 1
    half = float(stats.t.ppf((1 + CONFIDENCE) / 2, df)) * spread
    p = float(2 * stats.t.sf(abs(z) / spread, df))
    return {"ci": [math.tanh(z - half), math.tanh(z + half)], "p": p, "se_z": spread}


def naive_pearson_p(x: Sequence[float], y: Sequence[float]) -> float:
    """scipy's p-value treating every cell as independent: what the page used to print, kept
    for the null check to compare against."""
    return float(stats.pearsonr(np.asarray(x, float), np.asarray(y, float)).pvalue)


# --- multiplicity ---------------------------------------------------------------------------


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values across all given (the k-th smallest times m − k + 1, made
    non-decreasing, at most 1); None stays None and is not counted as a test. Written out
    because statsmodels' `multipletests` runs a full garbage collection on every call."""
    present = [i for i, p in enumerate(pvalues) if p is not None]
    adjusted: list[float | None] = [None] * len(pvalues)
    raw = np.array([pvalues[i] for i in present], dtype=float)
    order = np.argsort(raw, kind="stable")
    scaled = (len(raw) - np.arange(len(raw))) * raw[order]
    stepped = np.minimum(np.maximum.accumulate(scaled), 1.0)
    for rank, position in enumerate(order):
        adjusted[present[position]] = float(stepped[rank])
    return adjusted
