"""The seed paper's statistics, and ours beyond it, on a study frame (`study.cells_frame`).

Every test runs on cells (task x model x temperature), as the paper's do: a cell's TSS, AC
and correct rate are one observation each. Distributions and tests come from scipy and
statsmodels; only sums of squares and effect sizes are computed here.

Each function returns plain dicts or DataFrames; `full_report` bundles them and `jsonable`
turns NaN and infinities into None, so `json.dumps(report, allow_nan=False)` works. A test
that cannot be computed (too few cells, constant data) returns `{"error": reason}` in place
of its numbers; one that does not apply (a single temperature) says so with a reason.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from patientagentbench.analysis.headline import (
    MIN_CELLS_FOR_A_CORRELATION,
    MIN_CELLS_FOR_A_MEAN,
    MIN_CELLS_FOR_A_SHARE,
    MIN_CELLS_FOR_AN_F_TEST,
    MIN_PAIRS_FOR_AN_EFFECT_SIZE,
    interval_withheld,
)
from patientagentbench.analysis.paper_study import paper_study
from patientagentbench.analysis.study import attribute_columns

__all__ = [
    "CONSISTENCY_METRICS",
    "TABLE_METRICS",
    "ambiguous_vs_structured",
    "anova",
    "attribute_table",
    "bonferroni",
    "bootstrap_ci",
    "category_table",
    "correctness_vs_tss",
    "difficulty_table",
    "divergence_histogram",
    "full_report",
    "group_table",
    "headline_figures",
    "independent_comparison",
    "jsonable",
    "mean_ci",
    "mixed_model",
    "model_table",
    "output_exact_match_summary",
    "paired_comparison",
    "paired_tss_vs_ac",
    "primary_pvalues",
    "report_tables",
    "split_half_reliability",
    "task_table",
    "temperature_comparison",
]

CONSISTENCY_METRICS = ("tss", "ac", "ac_aligned")
TABLE_METRICS = (
    *CONSISTENCY_METRICS,
    "unique_sequences",
    "divergence_point",
    "output_exact_match",
    "correct_rate",
    "malformed_rate",
    "calls_mean",
)
DIFFICULTY_ORDER = ("easy", "medium", "hard")
AMBIGUOUS = "ambiguous"
# The paper's text splits cells at "TSS >= 0.90"; its code splits at the median of cell TSS,
# which is what `correctness_vs_tss` does unless given a threshold.
PAPER_TEXT_SPLIT_TSS = 0.90


# -- intervals -----------------------------------------------------------------------------


def _finite(values: Iterable[Any]) -> np.ndarray:
    array = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce")
    array = array.to_numpy(dtype=float)
    return array[np.isfinite(array)]


def _t_half_width(sd, n, level: float):
    """Half-width of the t-based interval of a mean; NaN below two values."""
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        quantile = stats.t.ppf(0.5 + level / 2, np.where(n >= 2, n - 1, np.nan))
        return quantile * np.asarray(sd, dtype=float) / np.sqrt(n)


def mean_ci(values: Iterable[Any], level: float = 0.95) -> dict[str, Any]:
    """Mean, sample sd and the t-based confidence interval (scipy.stats.t); None/NaN ignored."""
    data = _finite(values)
    n = len(data)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci_low": None, "ci_high": None, "level": level}
    mean = float(data.mean())
    sd = float(data.std(ddof=1)) if n > 1 else None
    half = float(_t_half_width(sd, n, level)) if sd is not None else math.nan
    low, high = (mean - half, mean + half) if math.isfinite(half) else (None, None)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": low, "ci_high": high, "level": level}


def bootstrap_ci(
    values: Iterable[Any],
    stat: Callable = np.mean,
    n: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    method: str = "BCa",
) -> dict[str, Any]:
    """Bootstrap interval of `stat` (scipy.stats.bootstrap, seeded, so repeatable).

    BCa by default; when BCa is undefined (its jackknife degenerates) the percentile interval
    is given instead and `method` says so. Constant data gives the point as its interval.
    """
    data = _finite(values)
    result = {"n": len(data), "estimate": None, "ci_low": None, "ci_high": None}
    result |= {"level": level, "n_resamples": n, "method": method}
    if len(data) == 0:
        return result
    result["estimate"] = float(stat(data))
    if len(data) < 2:
        return result
    if np.all(data == data[0]):
        return result | {"ci_low": result["estimate"], "ci_high": result["estimate"]}
    for attempt in dict.fromkeys((method, "percentile")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            interval = stats.bootstrap(
                (data,),
                stat,
                n_resamples=n,
                confidence_level=level,
                method=attempt,
                rng=np.random.default_rng(seed),
            ).confidence_interval
        if np.isfinite(interval.low) and np.isfinite(interval.high):
            return result | {"ci_low": interval.low, "ci_high": interval.high, "method": attempt}
    return result


TABLE_BOOTSTRAP_RESAMPLES = 1000  # per group and metric; a table asks for hundreds


def percentile_bootstrap_mean(
    values: Iterable[Any], *, n: int = TABLE_BOOTSTRAP_RESAMPLES, seed: int = 0, level=0.95
) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of a mean over cells (seeded). It never leaves the range
    of the data, so a bounded metric's interval stays inside [0, 1] even at n = 2, where a
    t interval does not (TSS 0.5 +- 5.4). None below two values."""
    data = _finite(values)
    if len(data) < 2:
        return None, None
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    means = data[_resample_indices(len(data), n, seed)].mean(axis=1)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


@functools.lru_cache(maxsize=64)
def _resample_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    """The seeded resamples of `size` cells; the same for every group and metric of that
    size (a table asks for hundreds of intervals), so drawn once."""
    indices = np.random.default_rng(seed).integers(0, size, size=(resamples, size))
    indices.flags.writeable = False
    return indices


def _wilson(successes, trials, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a pass rate (statsmodels); NaN where there are no trials."""
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    low = np.full(trials.shape, np.nan)
    high = np.full(trials.shape, np.nan)
    some = np.nan_to_num(trials) > 0
    if some.any():
        low[some], high[some] = proportion_confint(
            successes[some], trials[some], alpha=1 - level, method="wilson"
        )
    return low, high


# -- tables --------------------------------------------------------------------------------


def group_table(
    frame: pd.DataFrame,
    by: str | list[str],
    *,
    level: float = 0.95,
    bootstrap_resamples: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Per group: cells, traces, and each metric's mean, sd and CI over cells (percentile
    bootstrap, `percentile_bootstrap_mean`, so bounded metrics stay in range); the pooled
    correct rate over graded traces with its Wilson interval; optionally BCa bootstrap CIs of
    mean TSS and AC."""
    keys = [by] if isinstance(by, str) else list(by)
    grouped = frame.groupby(keys, dropna=False, sort=True)
    columns: dict[str, Any] = {"n_cells": grouped.size()}
    counts = grouped[["n_valid", "n_error", "n_graded"]].sum(min_count=1)
    columns |= {"n_valid": counts["n_valid"], "n_error": counts["n_error"]}
    summary = grouped[list(TABLE_METRICS)].agg(["mean", "std"])
    for metric in TABLE_METRICS:
        intervals = [
            _table_interval(percentile_bootstrap_mean(values, seed=seed, level=level), values)
            for _, values in grouped[metric]
        ]
        columns |= {
            f"{metric}_mean": summary[(metric, "mean")],
            f"{metric}_sd": summary[(metric, "std")],
            f"{metric}_ci_low": pd.Series([i[0] for i in intervals], index=summary.index),
            f"{metric}_ci_high": pd.Series([i[1] for i in intervals], index=summary.index),
        }
    correct = (frame["correct_rate"] * frame["n_graded"]).round()
    correct = correct.groupby([frame[key] for key in keys], dropna=False).sum()
    graded = counts["n_graded"].fillna(0)
    low, high = _wilson(correct, graded, level)
    columns |= {
        "correct_traces": correct,
        "graded_traces": graded,
        "correct_traces_rate": correct / graded.where(graded > 0),
        "correct_wilson_low": pd.Series(low, index=graded.index),
        "correct_wilson_high": pd.Series(high, index=graded.index),
    }
    for metric in ("tss", "ac") if bootstrap_resamples else ():
        intervals = [
            _table_interval(_bounds(bootstrap_ci(values, n=bootstrap_resamples, seed=seed)), values)
            for _, values in grouped[metric]
        ]
        columns[f"{metric}_boot_ci_low"] = [i[0] for i in intervals]
        columns[f"{metric}_boot_ci_high"] = [i[1] for i in intervals]
    table = pd.DataFrame(columns, index=columns["n_cells"].index)
    return table.reset_index()


def _bounds(result: Mapping[str, Any]) -> tuple[float | None, float | None]:
    return result["ci_low"], result["ci_high"]


def _table_interval(
    bounds: tuple[float | None, float | None], values: Iterable[Any]
) -> tuple[float | None, float | None]:
    """A group's interval, or none (the table then says "not enough evidence") when it has
    zero width or stands on fewer cells than a mean needs (`headline.interval_withheld`)."""
    low, high = bounds
    if low is None or high is None:
        return None, None
    if interval_withheld(low, high, len(_finite(values)), MIN_CELLS_FOR_A_MEAN):
        return None, None
    return low, high


def model_table(frame: pd.DataFrame, *, bootstrap_resamples: int = 2000) -> pd.DataFrame:
    """The paper's Table 1: per model TSS and AC mean +- sd, output match, unique sequences
    (and every other metric), ordered by mean TSS as the paper orders it."""
    table = group_table(frame, "model", bootstrap_resamples=bootstrap_resamples)
    table = table.sort_values(["tss_mean", "model"], ascending=[False, True], na_position="last")
    return table.reset_index(drop=True)


def category_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: per task category."""
    return group_table(frame, "category")


def difficulty_table(frame: pd.DataFrame) -> pd.DataFrame:
    table = group_table(frame, "difficulty")
    return table.sort_values("difficulty", key=_difficulty_rank).reset_index(drop=True)


def task_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per task (over models and temperatures), with the task's category and difficulty."""
    return group_table(frame, ["task_id", "category", "difficulty"])


def attribute_table(frame: pd.DataFrame, attribute: str) -> pd.DataFrame:
    """Per value of any case attribute (category, subtask, severity, personality, ...)."""
    if attribute not in frame:
        raise KeyError(f"no attribute column {attribute!r} in the study frame")
    return group_table(frame, attribute)


def _difficulty_rank(values: pd.Series) -> pd.Series:
    order = {name: rank for rank, name in enumerate(DIFFICULTY_ORDER)}
    return values.map(lambda value: (order.get(value, len(order)), str(value)))


# -- two-sample and paired comparisons -----------------------------------------------------


def _unavailable(reason: str) -> dict[str, str]:
    return {"error": reason}


def _d_interval(t_stat: float, df: float, scale: float, level: float) -> tuple[float, float]:
    """CI of a Cohen's d whose t statistic is d * scale, by inverting the noncentral t
    (scipy.stats.nct): the interval holds every noncentrality whose distribution puts t_obs
    within its central `level` (Steiger & Fouladi 1997; exact under normality)."""
    tail = (1 - level) / 2

    def solve(probability: float) -> float:
        def gap(noncentrality: float) -> float:
            return stats.nct.cdf(t_stat, df, noncentrality) - probability

        # cdf falls as the noncentrality grows; widen until the root is bracketed.
        width = 5.0 + abs(t_stat)
        for _ in range(20):
            low, high = t_stat - width, t_stat + width
            if gap(low) > 0 > gap(high):
                return optimize.brentq(gap, low, high, xtol=1e-10)
            width *= 2
        raise ValueError("noncentrality not bracketed")

    return solve(1 - tail) / scale, solve(tail) / scale


def _effect_interval(t_stat, df, scale, level) -> dict[str, Any]:
    try:
        low, high = _d_interval(float(t_stat), float(df), scale, level)
    except (ValueError, RuntimeError, OverflowError):
        return {"d_ci_low": None, "d_ci_high": None}
    return {"d_ci_low": low, "d_ci_high": high}


def paired_comparison(
    first: Iterable[Any], second: Iterable[Any], *, level: float = 0.95
) -> dict[str, Any]:
    """Paired t (scipy.stats.ttest_rel) of first - second, and Cohen's d for paired data
    (d_z = mean difference / sd of the differences) with its noncentral-t CI. Pairs with a
    missing side are left out."""
    pairs = pd.DataFrame({"first": list(first), "second": list(second)}).apply(
        pd.to_numeric, errors="coerce"
    )
    pairs = pairs.dropna()
    n = len(pairs)
    if n < 2:
        return _unavailable(f"needs two complete pairs, has {n}")
    difference = pairs["first"] - pairs["second"]
    sd = float(difference.std(ddof=1))
    result = {
        "n": n,
        "mean_first": float(pairs["first"].mean()),
        "mean_second": float(pairs["second"].mean()),
        "difference": mean_ci(difference, level),
    }
    if sd == 0:
        return result | {
            "t": None,
            "df": n - 1,
            "p": None,
            "cohens_d": None,
            "reason": "every pair differs by the same amount",
        }
    test = stats.ttest_rel(pairs["first"], pairs["second"])
    return result | {
        "t": float(test.statistic),
        "df": int(test.df),
        "p": float(test.pvalue),
        "cohens_d": float(difference.mean() / sd),
        **_effect_interval(test.statistic, test.df, math.sqrt(n), level),
        "d_method": "d_z = mean difference / sd difference; CI by noncentral t",
    }


def independent_comparison(
    first: Iterable[Any], second: Iterable[Any], *, level: float = 0.95
) -> dict[str, Any]:
    """Student's t (pooled variance, the test that matches pooled Cohen's d) and Welch's t
    (scipy.stats.ttest_ind), each group's mean with its CI, and Cohen's d with its CI."""
    a, b = _finite(first), _finite(second)
    if len(a) < 2 or len(b) < 2:
        return _unavailable(f"needs two cells in each group, has {len(a)} and {len(b)}")
    result = {"first": mean_ci(a, level), "second": mean_ci(b, level)}
    result["difference"] = float(a.mean() - b.mean())
    df = len(a) + len(b) - 2
    pooled_sd = math.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / df)
    if pooled_sd == 0:
        return result | {"p": None, "cohens_d": None, "reason": "both groups are constant"}
    with warnings.catch_warnings():
        # scipy warns of precision loss when a group is constant (a category all at TSS 1).
        warnings.simplefilter("ignore", RuntimeWarning)
        student = stats.ttest_ind(a, b, equal_var=True)
        welch = stats.ttest_ind(a, b, equal_var=False)
    scale = math.sqrt(len(a) * len(b) / (len(a) + len(b)))
    return result | {
        "t": float(student.statistic),
        "df": df,
        "p": float(student.pvalue),
        "welch_t": float(welch.statistic),
        "welch_df": float(welch.df),
        "welch_p": float(welch.pvalue),
        "cohens_d": result["difference"] / pooled_sd,
        **_effect_interval(student.statistic, df, scale, level),
        "d_method": "pooled-sd Cohen's d; CI by noncentral t",
    }


def paired_tss_vs_ac(frame: pd.DataFrame) -> dict[str, Any]:
    """The paper's headline: TSS exceeds AC within the same cells (paired t, Cohen's d)."""
    result = paired_comparison(frame["tss"], frame["ac"])
    if "error" not in result:
        result["tss"] = mean_ci(frame["tss"])
        result["ac"] = mean_ci(frame["ac"])
    return result


def ambiguous_vs_structured(frame: pd.DataFrame) -> dict[str, Any]:
    """Cells of ambiguous tasks against all other (structured) categories, on AC and TSS
    (the paper: AC 0.52 vs 0.72, d = 0.74; TSS 0.79 vs 0.89, d = 0.58)."""
    known = frame[frame["category"].notna()]
    ambiguous = known["category"] == AMBIGUOUS
    if not ambiguous.any():
        return _unavailable(f"no cells in category {AMBIGUOUS!r}")
    results = {}
    for metric in ("ac", "tss", "ac_aligned"):
        comparison = independent_comparison(
            known.loc[ambiguous, metric], known.loc[~ambiguous, metric]
        )
        if "error" not in comparison and comparison["second"]["mean"]:
            comparison["relative_difference"] = (
                comparison["difference"] / comparison["second"]["mean"]
            )
        results[metric] = comparison
    return {"first": AMBIGUOUS, "second": "structured (every other category)", **results}


# -- divergence, output agreement, correctness ---------------------------------------------


def divergence_histogram(frame: pd.DataFrame) -> dict[str, Any]:
    """First-divergence step over every diverging pair of runs (the paper: 60% in steps
    1-2), and the mean of the cells' divergence points (the paper's 2.2)."""
    steps = np.array([step for steps in frame["divergence_steps"] for step in steps], dtype=int)
    cell_mean = mean_ci(frame["divergence_point"])["mean"]
    if len(steps) == 0:
        return {
            "n_pairs": 0,
            "counts": [],
            "share_steps_1_2": None,
            "mean_pair_step": None,
            "mean_cell_divergence_point": cell_mean,
            "reason": "no diverging pair of runs",
        }
    counts = np.bincount(steps)[1:]
    return {
        "n_pairs": len(steps),
        "counts": [
            {"step": step, "pairs": int(count), "share": count / len(steps)}
            for step, count in enumerate(counts, start=1)
        ],
        "share_steps_1_2": float((steps <= 2).mean()),
        "mean_pair_step": float(steps.mean()),
        "median_pair_step": float(np.median(steps)),
        "mean_cell_divergence_point": cell_mean,
    }


def output_exact_match_summary(frame: pd.DataFrame) -> dict[str, Any]:
    """Pairwise exact match of final responses (the paper: below 5% overall)."""
    defined = frame[frame["output_exact_match"].notna()]
    per_model = defined.groupby("model")["output_exact_match"].mean()
    return {
        "overall": mean_ci(defined["output_exact_match"]),
        "per_model": {model: float(value) for model, value in per_model.items()},
        "max_model_mean": float(per_model.max()) if len(per_model) else None,
        "max_cell": float(defined["output_exact_match"].max()) if len(defined) else None,
        "share_of_cells_with_any_match": (
            float((defined["output_exact_match"] > 0).mean()) if len(defined) else None
        ),
    }


def _correlation(x: pd.Series, y: pd.Series) -> dict[str, Any]:
    pairs = pd.DataFrame({"x": x, "y": y}).dropna()
    n = len(pairs)
    if n < 3:
        return _unavailable(f"needs three cells with both values, has {n}")
    if pairs["x"].nunique() < 2 or pairs["y"].nunique() < 2:
        return _unavailable("one of the variables is constant")
    pearson = stats.pearsonr(pairs["x"], pairs["y"])
    interval = pearson.confidence_interval()
    spearman = stats.spearmanr(pairs["x"], pairs["y"])
    return {
        "n": n,
        "pearson_r": float(pearson.statistic),
        "pearson_p": float(pearson.pvalue),
        "pearson_ci_low": float(interval.low),
        "pearson_ci_high": float(interval.high),
        "spearman_rho": float(spearman.statistic),
        "spearman_p": float(spearman.pvalue),
    }


def _correct_and_graded(cells: pd.DataFrame) -> tuple[float, float]:
    """Correct and graded traces over cells (a cell's rate times its graded runs)."""
    correct = (cells["correct_rate"] * cells["n_graded"]).round().sum()
    return float(correct), float(cells["n_graded"].sum())


def _pooled_correct_rate(cells: pd.DataFrame) -> float | None:
    correct, graded = _correct_and_graded(cells)
    return correct / graded if graded else None


def _median_split(cells: pd.DataFrame, threshold: float | None) -> dict[str, Any]:
    median = float(cells["tss"].median())
    threshold = median if threshold is None else threshold
    high = cells[cells["tss"] >= threshold]
    low = cells[cells["tss"] < threshold]
    comparison = independent_comparison(high["correct_rate"], low["correct_rate"])
    return {
        "threshold": threshold,
        "threshold_is_median": threshold == median,
        "tss_median": median,
        "n_high": len(high),
        "n_low": len(low),
        "high_traces_correct_rate": _pooled_correct_rate(high),
        "low_traces_correct_rate": _pooled_correct_rate(low),
        "test": comparison,
    }


def _tertiles(cells: pd.DataFrame) -> dict[str, Any]:
    if len(cells) < 3:
        return _unavailable(f"needs three cells, has {len(cells)}")
    # Ranks break ties (many cells sit at TSS 1), so the three groups are equal in size.
    labels = pd.qcut(cells["tss"].rank(method="first"), 3, labels=["low", "middle", "high"])
    rows = []
    for label, members in cells.groupby(labels, observed=True):
        rows.append(
            {
                "tertile": label,
                "n": len(members),
                "tss_min": float(members["tss"].min()),
                "tss_max": float(members["tss"].max()),
                "correct_rate": mean_ci(members["correct_rate"]),
            }
        )
    test = anova(cells.assign(tertile=labels.astype(str)), "correct_rate", by="tertile")
    return {"tertiles": rows, "anova": test}


def correctness_vs_tss(frame: pd.DataFrame, threshold: float | None = None) -> dict:
    """Does consistency predict correctness? Pearson and Spearman of TSS (and AC) with the
    cell's correct rate; the split at the median cell TSS (the paper: 90.2% vs 61.2%, d =
    0.81), or at `threshold`; correct rate per TSS tertile."""
    cells = frame[frame["tss"].notna() & frame["correct_rate"].notna()]
    if cells.empty:
        return _unavailable("no cell has both a TSS and a correct rate")
    return {
        "n": len(cells),
        "tss": _correlation(cells["tss"], cells["correct_rate"]),
        "ac": _correlation(frame["ac"], frame["correct_rate"]),
        "median_split": _median_split(cells, threshold),
        "tertiles": _tertiles(cells),
    }


# -- ANOVA, reliability, multiple testing --------------------------------------------------


def anova(frame: pd.DataFrame, metric: str, by: str = "model") -> dict[str, Any]:
    """One-way ANOVA (scipy.stats.f_oneway) of a metric across groups, with eta^2 =
    SS_between / SS_total (the paper: TSS by model F = 3.52, eta^2 = 0.15)."""
    data = frame[[by, metric]].dropna()
    groups = [members[metric].to_numpy(dtype=float) for _, members in data.groupby(by)]
    n, k = len(data), len(groups)
    if k < 2:
        return _unavailable(f"needs two groups of {by}, has {k}")
    if n - k < 1:
        return _unavailable(f"needs more cells ({n}) than groups ({k})")
    values = data[metric].to_numpy(dtype=float)
    ss_total = float(((values - values.mean()) ** 2).sum())
    ss_between = float(sum(len(g) * (g.mean() - values.mean()) ** 2 for g in groups))
    result = {
        "metric": metric,
        "by": by,
        "n": n,
        "groups": k,
        "df_between": k - 1,
        "df_within": n - k,
        "eta_squared": ss_between / ss_total if ss_total > 0 else None,
        "group_means": {
            str(name): float(members[metric].mean()) for name, members in data.groupby(by)
        },
    }
    if ss_total == ss_between:
        return result | {"F": None, "p": None, "reason": "no variance within groups"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = stats.f_oneway(*groups)
    return result | {"F": float(test.statistic), "p": float(test.pvalue)}


def split_half_reliability(frame: pd.DataFrame, metric: str = "tss") -> dict[str, Any]:
    """Pearson r between the metric on odd and on even repetitions across cells, and the
    Spearman-Brown reliability of the full cell, 2r / (1 + r) (the paper: TSS r = 0.66)."""
    odd, even = f"{metric}_odd", f"{metric}_even"
    if odd not in frame or even not in frame:
        return _unavailable(f"the frame has no {odd}/{even} columns")
    correlation = _correlation(frame[odd], frame[even])
    if "error" in correlation:
        return correlation
    r = correlation["pearson_r"]
    return {
        "metric": metric,
        "n": correlation["n"],
        "r": r,
        "ci_low": correlation["pearson_ci_low"],
        "ci_high": correlation["pearson_ci_high"],
        "p": correlation["pearson_p"],
        "spearman_brown": 2 * r / (1 + r) if r > -1 else None,
    }


def bonferroni(pvalues: Mapping[str, float | None], alpha: float = 0.05) -> dict[str, Any]:
    """Bonferroni over the given p-values (statsmodels multipletests); a missing p is kept
    as None and does not count towards m."""
    tested = {name: float(p) for name, p in pvalues.items() if _is_number(p)}
    adjusted, reject = {}, {}
    if tested:
        reject_array, adjusted_array, _, _ = multipletests(
            list(tested.values()), alpha=alpha, method="bonferroni"
        )
        adjusted = dict(zip(tested, adjusted_array.tolist(), strict=True))
        reject = dict(zip(tested, reject_array.tolist(), strict=True))
    return {
        "alpha": alpha,
        "m": len(tested),
        "tests": {
            name: {
                "p": tested.get(name),
                "p_adjusted": adjusted.get(name),
                "significant": reject.get(name),
            }
            for name in pvalues
        },
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.number) and math.isfinite(value)


# -- mixed model and temperatures ----------------------------------------------------------


def mixed_model(frame: pd.DataFrame, metric: str, group: str = "task_id") -> dict[str, Any]:
    """Linear mixed model `metric ~ C(model)` with a random intercept per task (statsmodels
    MixedLM, REML): the model effect net of task difficulty, where the paper ran a one-way
    ANOVA. The omnibus model effect is a likelihood-ratio test of ML fits with and without
    the model term. Returns {"error": ...} rather than raising on data it cannot fit."""
    import statsmodels.formula.api as smf  # the formula API loads patsy; only needed here

    data = frame[[metric, "model", group]].dropna().reset_index(drop=True)
    models = sorted(data["model"].unique())
    problem = _mixed_model_problem(data, metric, group, len(models))
    if problem:
        return _unavailable(problem)
    formula = f"{metric} ~ C(model)"
    try:
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            fit = smf.mixedlm(formula, data, groups=data[group]).fit(reml=True)
            result = _mixed_model_result(fit, models, len(data), data[group].nunique())
            result["model_effect"] = _model_effect(data, metric, group, len(models) - 1)
    except (ValueError, np.linalg.LinAlgError, ZeroDivisionError, OverflowError) as error:
        return _unavailable(f"the mixed model could not be fitted: {error}")
    return {
        "metric": metric,
        "formula": f"{formula} + (1 | {group})",
        **result,
        "warnings": list(dict.fromkeys(str(record.message) for record in records)),
    }


def _mixed_model_result(fit, models: list[str], n_obs: int, n_groups: int) -> dict[str, Any]:
    group_variance = float(fit.cov_re.iloc[0, 0])
    return {
        "n_obs": n_obs,
        "n_groups": int(n_groups),
        "reference_model": models[0],
        "coefficients": _coefficients(fit),
        "group_variance": group_variance,
        "residual_variance": float(fit.scale),
        "icc": _icc(group_variance, float(fit.scale)),
        "converged": bool(fit.converged),
    }


def _model_effect(data: pd.DataFrame, metric: str, group: str, df: int) -> dict[str, Any]:
    """Likelihood-ratio test of the model term; REML likelihoods of models with different
    fixed effects are not comparable, so both fits here are ML."""
    import statsmodels.formula.api as smf

    full = smf.mixedlm(f"{metric} ~ C(model)", data, groups=data[group]).fit(reml=False)
    null = smf.mixedlm(f"{metric} ~ 1", data, groups=data[group]).fit(reml=False)
    statistic = max(0.0, 2 * (full.llf - null.llf))
    return {
        "lr_statistic": statistic,
        "df": df,
        "p": float(stats.chi2.sf(statistic, df)),
        "method": "likelihood ratio of ML fits with and without C(model)",
    }


def _mixed_model_problem(data: pd.DataFrame, metric: str, group: str, models: int) -> str:
    if models < 2:
        return f"needs two models, has {models}"
    if data[group].nunique() < 2:
        return f"needs two groups of {group}, has {data[group].nunique()}"
    if len(data) <= models + 2:
        return f"needs more cells ({len(data)}) than parameters ({models + 2})"
    if data[metric].nunique() < 2:
        return f"{metric} is constant"
    if data.groupby(group)["model"].nunique().max() < 2:
        return f"no {group} was run with two models, so the random intercept is not identified"
    return ""


def _coefficients(fit) -> list[dict[str, Any]]:
    interval = fit.conf_int()
    rows = []
    for term, coefficient in fit.fe_params.items():
        label = term.removeprefix("C(model)[T.").removesuffix("]")
        rows.append(
            {
                "term": term,
                "label": "intercept (reference model)" if term == "Intercept" else label,
                "coef": float(coefficient),
                "se": float(fit.bse_fe[term]),
                "z": float(fit.tvalues[term]),
                "p": float(fit.pvalues[term]),
                "ci_low": float(interval.loc[term, 0]),
                "ci_high": float(interval.loc[term, 1]),
            }
        )
    return rows


def _icc(group_variance: float, residual_variance: float) -> float | None:
    total = group_variance + residual_variance
    return group_variance / total if total > 0 else None


def temperature_comparison(frame: pd.DataFrame, metric: str) -> dict[str, Any]:
    """Per temperature the metric's mean and CI; paired t between each two temperatures on
    the (model, task) cells run at both (Bonferroni within the family), and Friedman's
    test when there are three or more. Cells without a temperature are left out."""
    data = frame[frame["temperature"].notna()]
    temperatures = sorted(data["temperature"].unique().tolist())
    if len(temperatures) < 2:
        return {"applicable": False, "reason": "the run has one temperature"}
    per_temperature = [
        {"temperature": t, **mean_ci(data.loc[data["temperature"] == t, metric])}
        for t in temperatures
    ]
    wide = data.groupby(["model", "task_id", "temperature"])[metric].mean().unstack()
    pairs = {
        f"{high} vs {low}": paired_comparison(wide[high], wide[low])
        for low, high in combinations(temperatures, 2)
    }
    adjusted = bonferroni({name: result.get("p") for name, result in pairs.items()})
    for name, result in pairs.items():
        result["p_bonferroni"] = adjusted["tests"][name]["p_adjusted"]
    return {
        "applicable": True,
        "metric": metric,
        "temperatures": temperatures,
        "per_temperature": per_temperature,
        "paired": pairs,
        "friedman": _friedman(wide.dropna()) if len(temperatures) >= 3 else None,
    }


def _friedman(complete: pd.DataFrame) -> dict[str, Any]:
    if len(complete) < 2:
        return _unavailable(f"needs two cells run at every temperature, has {len(complete)}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = stats.friedmanchisquare(*(complete[column] for column in complete))
    return {"n": len(complete), "statistic": float(test.statistic), "p": float(test.pvalue)}


# -- the report ----------------------------------------------------------------------------


def primary_pvalues(report: Mapping[str, Any]) -> dict[str, float | None]:
    """The paper's headline hypotheses, the family Bonferroni corrects over."""
    paths = {
        "tss_exceeds_ac": ("tss_vs_ac", "p"),
        "ambiguous_lowers_ac": ("ambiguous_vs_structured", "ac", "p"),
        "ambiguous_lowers_tss": ("ambiguous_vs_structured", "tss", "p"),
        "tss_predicts_correctness": ("correctness_vs_tss", "tss", "pearson_p"),
        "median_split_correctness": ("correctness_vs_tss", "median_split", "test", "p"),
        "tss_differs_by_model": ("anova", "tss", "p"),
        "ac_differs_by_model": ("anova", "ac", "p"),
    }
    return {name: _lookup(report, *path) for name, path in paths.items()}


def _lookup(report: Mapping[str, Any], *path: str) -> Any:
    """report[a][b]...; None where a test was not computed (an error dict has no such key)."""
    node: Any = report
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _overall(frame: pd.DataFrame, bootstrap_resamples: int) -> dict[str, Any]:
    overall = {
        metric: {
            "t": mean_ci(frame[metric]),
            "bootstrap": bootstrap_ci(frame[metric], n=bootstrap_resamples),
        }
        for metric in (
            *CONSISTENCY_METRICS,
            "output_exact_match",
            "correct_rate",
            "correct_rate_all_checks",
        )
    }
    correct, graded = _correct_and_graded(frame)
    low, high = _wilson([correct], [graded], 0.95)
    overall["correct_traces"] = {
        "correct": correct,
        "graded": graded,
        "rate": _pooled_correct_rate(frame),
        "wilson_low": low[0],
        "wilson_high": high[0],
    }
    return overall


def _breakdowns(frame: pd.DataFrame) -> dict[str, Any]:
    """Every case attribute beyond the model: its table and an ANOVA of TSS and AC."""
    columns = ["category", "difficulty", *attribute_columns(frame)]
    return {
        column: {
            "table": attribute_table(frame, column),
            "anova": {metric: anova(frame, metric, by=column) for metric in ("tss", "ac")},
        }
        for column in columns
        if frame[column].notna().any()
    }


def dropped_cells(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Cells left out of every analysis (fewer than two valid runs), each with its reason."""
    if "excluded_reason" not in frame:
        return []
    dropped = frame[frame["excluded_reason"].notna()]
    return [
        {
            "model": row["model"],
            "task_id": row["task_id"],
            "temperature": row["temperature"],
            "n_runs": row.get("n_runs"),
            "n_valid": row["n_valid"],
            "reason": row["excluded_reason"],
        }
        for _, row in dropped.iterrows()
    ]


def analysed_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The cells the paper analyses: those with at least two valid runs."""
    if "excluded_reason" not in frame:
        return frame
    return frame[frame["excluded_reason"].isna()]


def full_report(
    frame: pd.DataFrame,
    *,
    include_mixed_model: bool = True,
    bootstrap_resamples: int = 2000,
    threshold: float | None = None,
    published_headline: Mapping[str, Mapping[str, Any]] | None = None,
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every table and test above, JSON-ready (NaN -> None), on the analysed cells; the cells
    with fewer than two valid runs are listed with their reason and otherwise left out, as
    the paper leaves them out. `paper` holds the paper's own study figures (`paper_study`);
    `published_headline` (the "headline" part of `figures.load_published`) puts the paper's
    published values beside this study's. `settings` (malformed-call handling, pass rule) is
    stated in the report."""
    everything, frame = frame, analysed_cells(frame)
    common = {
        "n_cells_total": len(everything),
        "dropped_cells": dropped_cells(everything),
        "settings": dict(settings or {}),
    }
    if frame.empty:
        reason = "the study has no cells" if everything.empty else "no cell has two valid runs"
        return jsonable({"n_cells": 0, "error": reason, **common})
    report: dict[str, Any] = {
        **common,
        "n_cells": len(frame),
        "n_valid_traces": frame["n_valid"].sum(),
        "n_error_traces": frame["n_error"].sum(),
        "models": sorted(frame["model"].dropna().unique().tolist()),
        "temperatures": sorted(frame["temperature"].dropna().unique().tolist()),
        "attributes": attribute_columns(frame),
        "overall": _overall(frame, bootstrap_resamples),
        "tables": {
            "model": model_table(frame, bootstrap_resamples=bootstrap_resamples),
            "category": category_table(frame),
            "difficulty": difficulty_table(frame),
            "task": task_table(frame),
            "model_category": group_table(frame, ["model", "category"]),
        },
        "tss_vs_ac": paired_tss_vs_ac(frame),
        "ambiguous_vs_structured": ambiguous_vs_structured(frame),
        "divergence": divergence_histogram(frame),
        "output_exact_match": output_exact_match_summary(frame),
        "correctness_vs_tss": correctness_vs_tss(frame, threshold),
        "anova": {metric: anova(frame, metric) for metric in CONSISTENCY_METRICS},
        "breakdowns": _breakdowns(frame),
        "split_half": {metric: split_half_reliability(frame, metric) for metric in ("tss", "ac")},
        "temperature": {metric: temperature_comparison(frame, metric) for metric in ("tss", "ac")},
    }
    report["bonferroni"] = bonferroni(primary_pvalues(report))
    report["mixed_model"] = (
        {metric: mixed_model(frame, metric) for metric in ("tss", "ac")}
        if include_mixed_model
        else {"skipped": "include_mixed_model=False"}
    )
    report["paper"] = paper_study(everything)
    report["headline"] = headline_figures(report, published_headline)
    return jsonable(report)


# The paper's headline figures: (name, label, path in the report's "paper" section, unit,
# path of the sample size, the minimum sample for setting it beside the paper's value).
HEADLINE_ROWS = (
    (
        "mean_tss",
        "Mean tool-sequence similarity (TSS) over cells",
        ("mean_tss",),
        "",
        ("n_cells_analyzed",),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "mean_ac",
        "Mean argument consistency (AC) over cells",
        ("mean_ac",),
        "",
        ("n_cells_analyzed",),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "tss_vs_ac_cohens_d",
        "TSS exceeds AC within cells: paired Cohen's d (paired t)",
        ("tss_vs_ac_paired", "cohens_d_z"),
        "",
        ("tss_vs_ac_paired", "n_cells"),
        MIN_PAIRS_FOR_AN_EFFECT_SIZE,
    ),
    (
        "ambiguous_ac",
        "AC of ambiguous tasks",
        ("ambiguous_vs_structured", "ac", "mean_ambiguous"),
        "",
        ("ambiguous_vs_structured", "ac", "n_ambiguous"),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "ambiguous_tss",
        "TSS of ambiguous tasks",
        ("ambiguous_vs_structured", "tss", "mean_ambiguous"),
        "",
        ("ambiguous_vs_structured", "ac", "n_ambiguous"),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "first_divergence_in_steps_1_2_pct",
        "Cells whose mean divergence point is in steps 1-2",
        ("divergence", "share_steps_1_2"),
        "%",
        ("divergence", "n_cells_with_divergence"),
        MIN_CELLS_FOR_A_SHARE,
    ),
    (
        "output_exact_match_pct_max",
        "Highest model mean of final-response exact match",
        None,
        "%",
        None,
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "overall_correctness_pct",
        "Correctness: mean of the cells' correct rates",
        ("correctness", "overall_correctness"),
        "%",
        ("correctness", "n_conditions"),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "correctness_high_tss_pct",
        "Correctness of cells at or above the median TSS",
        ("median_split", "high_tss_correctness"),
        "%",
        ("median_split", "n_high"),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "correctness_low_tss_pct",
        "Correctness of cells below the median TSS",
        ("median_split", "low_tss_correctness"),
        "%",
        ("median_split", "n_low"),
        MIN_CELLS_FOR_A_MEAN,
    ),
    (
        "tss_correctness_pearson_r",
        "TSS vs correct rate: Pearson r",
        ("correctness", "tss_pearson", "r"),
        "",
        ("correctness", "n_conditions"),
        MIN_CELLS_FOR_A_CORRELATION,
    ),
    (
        "tss_correctness_spearman_rho",
        "TSS vs correct rate: Spearman rho",
        ("correctness", "tss_spearman", "rho"),
        "",
        ("correctness", "n_conditions"),
        MIN_CELLS_FOR_A_CORRELATION,
    ),
    (
        "ac_correctness_pearson_r",
        "AC vs correct rate: Pearson r",
        ("correctness", "ac_pearson", "r"),
        "",
        ("correctness", "n_conditions"),
        MIN_CELLS_FOR_A_CORRELATION,
    ),
    (
        "anova_tss_F",
        "TSS differs by model: one-way ANOVA F",
        ("anova_tss_by_model", "F"),
        "",
        ("n_cells_compute_stats",),
        MIN_CELLS_FOR_AN_F_TEST,
    ),
    (
        "anova_ac_F",
        "AC differs by model: one-way ANOVA F",
        ("anova_ac_by_model", "F"),
        "",
        ("n_cells_compute_stats",),
        MIN_CELLS_FOR_AN_F_TEST,
    ),
    (
        "split_half_tss_r",
        "Split-half reliability of TSS (even vs odd runs): Pearson r",
        ("split_half", "tss_pearson_r"),
        "",
        ("split_half", "n_cells"),
        MIN_CELLS_FOR_A_CORRELATION,
    ),
)

# Where the paper section holds a headline's 95% interval as [low, high], and its method.
_PAPER_INTERVALS = {
    "ambiguous_ac": (("ambiguous_vs_structured", "ac", "ci95_ambiguous"), "t"),
    "ambiguous_tss": (("ambiguous_vs_structured", "tss", "ci95_ambiguous"), "t"),
    "correctness_high_tss_pct": (("median_split", "high_ci95"), "t"),
    "correctness_low_tss_pct": (("median_split", "low_ci95"), "t"),
    "tss_correctness_pearson_r": (("correctness", "tss_pearson", "ci95"), "Fisher z"),
    "tss_correctness_spearman_rho": (
        ("correctness", "tss_spearman", "ci95"),
        "Fisher z, Bonett-Wright variance",
    ),
    "ac_correctness_pearson_r": (("correctness", "ac_pearson", "ci95"), "Fisher z"),
    "split_half_tss_r": (("split_half", "tss_pearson_ci95"), "Fisher z"),
}
# Bootstrap intervals over the same cells, from the report's `overall` section.
_BOOTSTRAP_INTERVALS = {
    "mean_tss": "tss",
    "mean_ac": "ac",
    "overall_correctness_pct": "correct_rate",
}


def headline_figures(
    report: Mapping[str, Any], published: Mapping[str, Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The paper's headline figures computed as the paper's code computes them (the report's
    `paper` section), under the names of paper-headline-figures.csv, each with a label, its
    sample size, its 95% interval and method (or why it has none), the minimum sample below
    which it is not set beside the paper's value, the published value beside it, and the
    project's variant where the project measures the same thing differently (percentages
    where the paper gives percentages)."""
    paper = report.get("paper") or {}
    published = published or {}
    variants = _headline_variants(report)
    rows = []
    for name, label, path, unit, n_path, minimum in HEADLINE_ROWS:
        if path is None:
            value, n, interval = _max_model_exact_match(paper)
        else:
            value, n = _lookup(paper, *path), _lookup(paper, *n_path)
            interval = _figure_interval(name, report, paper)
        scale = 100 if unit == "%" and _is_number(value) else 1
        row = {
            "figure": name,
            "label": label,
            "value": value * scale if _is_number(value) else None,
            "unit": unit,
            "n": n,
            "ci": _scaled(interval, scale),
            "minimum": minimum.n,
            "minimum_why": minimum.why,
        }
        if name.startswith("anova_"):
            row["no_interval"] = _f_test_note(_lookup(paper, path[0]))
        if not _is_number(value):
            row["reason"] = _reason(paper, path)
        if name in published:
            row |= {
                "published": published[name].get("value"),
                "published_note": published[name].get("note"),
            }
        if name in variants:
            row["variant"] = variants[name]
        rows.append(row)
    return rows


def _interval(low: Any, high: Any, method: str) -> dict[str, Any] | None:
    if not (_is_number(low) and _is_number(high)):
        return None
    return {"low": float(low), "high": float(high), "method": method, "level": 0.95}


def _scaled(interval: dict[str, Any] | None, scale: float) -> dict[str, Any] | None:
    if interval is None:
        return None
    return interval | {"low": interval["low"] * scale, "high": interval["high"] * scale}


def _figure_interval(name: str, report: Mapping[str, Any], paper: Mapping[str, Any]):
    if name in _BOOTSTRAP_INTERVALS:
        boot = _lookup(report, "overall", _BOOTSTRAP_INTERVALS[name], "bootstrap") or {}
        method = f"{boot.get('method', 'BCa')} bootstrap over cells"
        return _interval(boot.get("ci_low"), boot.get("ci_high"), method)
    if name in _PAPER_INTERVALS:
        path, method = _PAPER_INTERVALS[name]
        bounds = _lookup(paper, *path) or [None, None]
        return _interval(*bounds, method)
    if name == "tss_vs_ac_cohens_d":
        return _d_z_interval(paper.get("tss_vs_ac_paired") or {})
    if name == "first_divergence_in_steps_1_2_pct":
        return _share_interval(paper.get("divergence") or {})
    return None


def _d_z_interval(test: Mapping[str, Any]) -> dict[str, Any] | None:
    """The paper's d_z = t / sqrt(n); its CI by the noncentral t on n - 1 df."""
    t, n = test.get("t"), test.get("n_cells")
    if not (_is_number(t) and _is_number(n)) or n < 2:
        return None
    bounds = _effect_interval(t, n - 1, math.sqrt(n), 0.95)
    return _interval(bounds["d_ci_low"], bounds["d_ci_high"], "noncentral t")


def _share_interval(divergence: Mapping[str, Any]) -> dict[str, Any] | None:
    share, n = divergence.get("share_steps_1_2"), divergence.get("n_cells_with_divergence")
    if not (_is_number(share) and _is_number(n)) or n < 1:
        return None
    low, high = _wilson([round(share * n)], [n], 0.95)
    return _interval(low[0], high[0], "Wilson, over cells")


def _f_test_note(test: Any) -> str:
    """An F is a test statistic, not an estimate: its degrees of freedom and p stand in
    for an interval."""
    if not isinstance(test, Mapping) or not _is_number(test.get("F")):
        return "F is a test statistic"
    return (
        f"F is a test statistic; F({test.get('df_between')}, {test.get('df_within')}), "
        f"p = {test['p']:.3g}"
    )


def _max_model_exact_match(paper: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """The highest model mean, with that model's cells and t interval (the interval of
    the model picked, not of the maximum over models)."""
    models = [
        model
        for model in (paper.get("per_model") or {}).values()
        if _is_number(model.get("mean_output_exact_match_rate"))
    ]
    if not models:
        return None, None, None
    best = max(models, key=lambda model: model["mean_output_exact_match_rate"])
    bounds = best.get("output_exact_match_ci95") or [None, None]
    return (
        best["mean_output_exact_match_rate"],
        best.get("n_cells"),
        _interval(*bounds, "t, over that model's cells"),
    )


def _reason(paper: Mapping[str, Any], path: tuple[str, ...] | None) -> str:
    """Why a figure is missing: the error its test gave, else a generic reason."""
    node: Any = paper
    for key in path or ():
        if isinstance(node, Mapping) and "error" in node:
            return str(node["error"])
        node = node.get(key) if isinstance(node, Mapping) else None
    return "not computable from these cells"


def _headline_variants(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The project's own measure of a headline figure, where it differs from the paper's,
    with its n, interval (or why it has none) and minimum, like the figure itself. `of`
    names what n counts when it is not cells: runs nested in cells, so such a variant is
    printed only when the figure's own cells reach their minimum."""

    def get(*path: str) -> Any:
        return _lookup(report, *path)

    def pct(value: Any) -> float | None:
        return 100 * value if _is_number(value) else None

    traces = get("overall", "correct_traces") or {}
    split = get("split_half", "tss") or {}
    candidates = {
        "first_divergence_in_steps_1_2_pct": {
            "label": "over diverging run pairs (the paper's histogram)",
            "value": pct(get("divergence", "share_steps_1_2")),
            "unit": "%",
            "n": get("divergence", "n_pairs"),
            "of": "run pairs",
            "ci": None,
            "no_interval": "the run pairs of a cell are not independent",
            "minimum": MIN_CELLS_FOR_A_SHARE,
        },
        "overall_correctness_pct": {
            "label": "pooled over graded traces",
            "value": pct(traces.get("rate")),
            "unit": "%",
            "n": traces.get("graded"),
            "of": "graded traces",
            "ci": _scaled(
                _interval(traces.get("wilson_low"), traces.get("wilson_high"), "Wilson"), 100
            ),
            "minimum": MIN_CELLS_FOR_A_SHARE,
        },
        "split_half_tss_r": {
            "label": "token-level TSS of odd vs even repetitions, every cell of 4+ runs",
            "value": split.get("r"),
            "unit": "",
            "n": split.get("n"),
            "ci": _interval(split.get("ci_low"), split.get("ci_high"), "Fisher z"),
            "minimum": MIN_CELLS_FOR_A_CORRELATION,
        },
    }
    return {
        name: variant | {"minimum": variant["minimum"].n, "minimum_why": variant["minimum"].why}
        for name, variant in candidates.items()
        if variant["value"] is not None
    }


def report_tables(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables a report page offers as CSV: cells; per model, category, difficulty, task,
    model x category (the heatmap's numbers), model x temperature when there are several,
    and per case attribute. The cells table lists every cell, a left-out one with its reason;
    the others are over the analysed cells."""
    cells = frame.drop(columns=["divergence_steps", "pass_hat_k"], errors="ignore")
    frame = analysed_cells(frame)
    tables = {
        "cells": cells,
        "model": model_table(frame),
        "category": category_table(frame),
        "difficulty": difficulty_table(frame),
        "task": task_table(frame),
        "model_category": group_table(frame, ["model", "category"]),
    }
    if frame["temperature"].nunique() > 1:
        tables["model_temperature"] = group_table(frame, ["model", "temperature"])
    for column in attribute_columns(frame):
        tables[f"attribute_{column}"] = attribute_table(frame, column)
    return tables


def jsonable(value: Any) -> Any:
    """Plain JSON values: NaN and infinities -> None, numpy scalars -> Python, frames ->
    lists of records, tuples -> lists."""
    if isinstance(value, pd.DataFrame):
        return [jsonable(record) for record in value.to_dict(orient="records")]
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | pd.Series | np.ndarray):
        return [jsonable(item) for item in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)
