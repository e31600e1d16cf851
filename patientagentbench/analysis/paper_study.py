"""The seed paper's study-level figures, computed the way its scripts compute them.

Reproduces `analyze.py`, `compute_stats.py`, `evaluate_correctness.py`
(`analyze_correctness_consistency`) and `split_half.py` of the paper's code on a study frame
(`study.cells_frame`) that still holds the insufficient cells (fewer than two valid runs):
the paper leaves those out of every figure but the completion counts. Each figure is checked
against `fixtures/golden/paper-edge-cases.json`, whose values the paper's code produced.

Where the paper's scripts and its text part ways, the scripts win here:

- the share of divergences in steps 1-2 counts *cells* (their mean divergence point), not
  run pairs;
- the correctness split is at the median of cell TSS (high = TSS >= median), with Cohen's
  d = (mean_h - mean_l) / sqrt((var_h + var_l) / 2) over population variances;
- split-half reliability compares the character-level TSS (`" ".join(names)`, Levenshtein
  on characters) of even- and odd-indexed runs over cells with at least ten runs, errored
  runs included as empty sequences;
- `compute_stats.py` leaves cells of the model named `claude-haiku` out of its tests.

The project's own variants (pairs, pooled correct traces, Spearman-Brown) stay in
`statistics.full_report` and are labelled there as additions.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein
from scipy import stats

__all__ = ["PAPER_EXCLUDED_MODELS", "char_level_tss", "fisher_interval", "paper_study"]

# compute_stats.py: `df_main = df[df["model"] != "claude-haiku"]`.
PAPER_EXCLUDED_MODELS = ("claude-haiku",)
_DIFFICULTY_RANK = {"easy": 1, "medium": 2, "hard": 3}
SPLIT_HALF_MIN_RUNS = 10


def char_level_tss(sequences: Sequence[Sequence[str]]) -> float:
    """split_half.py's `seq_sim`: mean over pairs of 1 - Levenshtein distance of the
    space-joined tool names, on characters, over the longer string's length."""
    if len(sequences) < 2:
        return 1.0
    texts = [" ".join(names) for names in sequences]
    similarities = [
        1.0 if not max(len(a), len(b)) else 1 - Levenshtein.distance(a, b) / max(len(a), len(b))
        for a, b in combinations(texts, 2)
    ]
    return float(np.mean(similarities))


def paper_study(frame: pd.DataFrame) -> dict[str, Any]:
    """Every study-level figure of the paper's scripts, under the golden file's names. Where
    scipy gives NaN (constant data, one cell per model) the figure is NaN, as the paper's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _paper_study(frame)


def _paper_study(frame: pd.DataFrame) -> dict[str, Any]:
    analysed = frame[frame["excluded_reason"].isna()]
    main = analysed[~analysed["model"].isin(PAPER_EXCLUDED_MODELS)]
    return {
        "n_cells": len(frame),
        "n_cells_analyzed": len(analysed),
        "n_cells_insufficient": len(frame) - len(analysed),
        "models": sorted(frame["model"].dropna().unique().tolist()),
        "mean_tss": _mean(analysed["tss"]),
        "mean_ac": _mean(analysed["ac"]),
        "mean_output_exact_match_rate": _mean(analysed["output_exact_match"]),
        "per_model": _per_model(analysed),
        "divergence": _divergence(analysed),
        "n_cells_compute_stats": len(main),
        "tss_vs_ac_paired": _guarded(_tss_vs_ac, main),
        "ambiguous_vs_structured": _guarded(_ambiguous_vs_structured, main),
        "anova_tss_by_model": _guarded(_anova, main, "tss"),
        "anova_ac_by_model": _guarded(_anova, main, "ac"),
        "kruskal_ac_by_category": _guarded(_kruskal, main),
        "difficulty_vs_mean_tool_calls": _guarded(_difficulty_vs_calls, main),
        **_correctness(analysed),
        "split_half": _guarded(_split_half, analysed),
        "completion_by_model": _completion(frame),
    }


def _mean(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.mean()) if len(values) else None


def _guarded(compute: Callable[..., dict], *args) -> dict[str, Any]:
    """A figure the data cannot give says why, in words, instead of NaN or a traceback."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compute(*args)
    except _NotComputable as reason:
        return {"error": str(reason)}


class _NotComputable(Exception):
    pass


def _require(condition: bool, reason: str) -> None:
    if not condition:
        raise _NotComputable(reason)


def _t_interval(values: pd.Series) -> list[float] | None:
    n = len(values)
    if n < 2:
        return None
    low, high = stats.t.interval(0.95, n - 1, loc=values.mean(), scale=stats.sem(values))
    return [float(low), float(high)]


def _t_interval_or_point(values: pd.Series) -> list[float] | None:
    """The t interval, or the point twice when every value is the same (scipy gives NaN):
    a headline then says the data do not vary instead of that it has no interval."""
    values = values.dropna()
    if len(values) >= 2 and values.nunique() == 1:
        return [float(values.iloc[0])] * 2
    return _t_interval(values)


def _per_model(analysed: pd.DataFrame) -> dict[str, Any]:
    return {
        str(model): {
            "mean_tss": float(cells["tss"].mean()),
            "mean_ac": float(cells["ac"].mean()),
            "mean_output_exact_match_rate": float(cells["output_exact_match"].mean()),
            "n_cells": len(cells),
            "tss_ci95": _t_interval(cells["tss"]),
            "ac_ci95": _t_interval(cells["ac"]),
            "output_exact_match_ci95": _t_interval_or_point(cells["output_exact_match"]),
        }
        for model, cells in sorted(analysed.groupby("model"), key=lambda item: str(item[0]))
    }


def _divergence(analysed: pd.DataFrame) -> dict[str, Any]:
    points = analysed["divergence_point"].dropna()
    if points.empty:
        return {"error": "no cell has a diverging pair of runs", "n_cells_with_divergence": 0}
    return {
        "mean_of_cell_divergence_points": float(points.mean()),
        "median_of_cell_divergence_points": float(points.median()),
        "share_steps_1_2": float((points <= 2).mean()),
        "n_cells_with_divergence": len(points),
    }


def _tss_vs_ac(main: pd.DataFrame) -> dict[str, Any]:
    _require(len(main) >= 2, f"needs two analysed cells, has {len(main)}")
    difference = main["tss"] - main["ac"]
    test = stats.ttest_rel(main["tss"], main["ac"])
    return {
        "t": float(test.statistic),
        "p": float(test.pvalue),
        "cohens_d_z": float(difference.mean() / difference.std()),
        "n_cells": len(main),
        "mean_difference": float(difference.mean()),
    }


def _ambiguous_vs_structured(main: pd.DataFrame) -> dict[str, Any]:
    is_ambiguous = main["category"] == "ambiguous"
    n_ambiguous, n_structured = int(is_ambiguous.sum()), int((~is_ambiguous).sum())
    _require(
        n_ambiguous >= 2 and n_structured >= 2,
        f"needs two ambiguous and two structured cells, has {n_ambiguous} and {n_structured}",
    )
    result = {}
    for metric in ("ac", "tss"):
        structured, ambiguous = main.loc[~is_ambiguous, metric], main.loc[is_ambiguous, metric]
        pooled = np.sqrt(
            (
                structured.std() ** 2 * (len(structured) - 1)
                + ambiguous.std() ** 2 * (len(ambiguous) - 1)
            )
            / (len(structured) + len(ambiguous) - 2)
        )
        test = stats.ttest_ind(structured, ambiguous)
        result[metric] = {
            "t": float(test.statistic),
            "p": float(test.pvalue),
            "cohens_d": float((structured.mean() - ambiguous.mean()) / pooled),
            "mean_structured": float(structured.mean()),
            "mean_ambiguous": float(ambiguous.mean()),
            "ci95_ambiguous": _t_interval_or_point(ambiguous),
        }
    result["ac"] |= {"n_structured": n_structured, "n_ambiguous": n_ambiguous}
    return result


def _anova(main: pd.DataFrame, metric: str) -> dict[str, Any]:
    groups = [cells[metric].to_numpy(dtype=float) for _, cells in main.groupby("model")]
    _require(len(groups) >= 2, f"needs two models, has {len(groups)}")
    values = main[metric].to_numpy(dtype=float)
    test = stats.f_oneway(*groups)
    ss_between = sum(len(g) * (g.mean() - values.mean()) ** 2 for g in groups)
    ss_total = ((values - values.mean()) ** 2).sum()
    return {
        "F": float(test.statistic),
        "p": float(test.pvalue),
        "eta_squared": float(ss_between / ss_total) if ss_total else None,
        "df_between": len(groups) - 1,
        "df_within": len(values) - len(groups),
    }


def _kruskal(main: pd.DataFrame) -> dict[str, Any]:
    groups = [cells["ac"].to_numpy(dtype=float) for _, cells in main.groupby("category")]
    _require(len(groups) >= 2, f"needs two categories, has {len(groups)}")
    test = stats.kruskal(*groups)
    return {"H": float(test.statistic), "p": float(test.pvalue)}


def _difficulty_vs_calls(main: pd.DataFrame) -> dict[str, Any]:
    rank = main["difficulty"].map(_DIFFICULTY_RANK)
    known = rank.notna() & main["calls_mean"].notna()
    _require(known.sum() >= 3, "needs three cells with an easy/medium/hard difficulty")
    test = stats.pearsonr(rank[known], main.loc[known, "calls_mean"])
    return {"r": float(test.statistic), "p": float(test.pvalue)}


def _correctness(analysed: pd.DataFrame) -> dict[str, Any]:
    scored = analysed[analysed["correct_rate"].notna()]
    if scored.empty:
        reason = "no analysed cell has a correctness verdict"
        return {"correctness": {"error": reason}, "median_split": {"error": reason}}
    rate, tss, ac = scored["correct_rate"], scored["tss"], scored["ac"]
    correctness = {"overall_correctness": float(rate.mean()), "n_conditions": len(scored)}
    if len(scored) >= 3:
        correctness |= {
            "tss_pearson": _pair(stats.pearsonr(tss, rate), "r", len(scored)),
            "tss_spearman": _pair(stats.spearmanr(tss, rate), "rho", len(scored)),
            "ac_pearson": _pair(stats.pearsonr(ac, rate), "r", len(scored)),
            "ac_spearman": _pair(stats.spearmanr(ac, rate), "rho", len(scored)),
        }
    else:
        correctness["correlations"] = {"error": f"needs three cells, has {len(scored)}"}
    return {"correctness": correctness, "median_split": _guarded(_median_split, scored)}


def _pair(result, name: str, n: int) -> dict[str, Any]:
    value = float(result.statistic)
    return {name: value, "p": float(result.pvalue), "ci95": fisher_interval(value, n, name)}


def fisher_interval(value: float, n: int, kind: str = "r") -> list[float] | None:
    """95% CI of a correlation by Fisher's z: standard error 1/sqrt(n - 3) for Pearson's r,
    Bonett & Wright's sqrt((1 + rho^2 / 2) / (n - 3)) for Spearman's rho. None below four
    pairs or for a correlation of exactly +-1 or NaN."""
    if n < 4 or not np.isfinite(value) or abs(value) >= 1:
        return None
    variance = (1 + value**2 / 2) if kind == "rho" else 1.0
    half = stats.norm.ppf(0.975) * np.sqrt(variance / (n - 3))
    centre = np.arctanh(value)
    return [float(np.tanh(centre - half)), float(np.tanh(centre + half))]


def _median_split(scored: pd.DataFrame) -> dict[str, Any]:
    median = float(np.median(scored["tss"]))
    high = scored.loc[scored["tss"] >= median, "correct_rate"].to_numpy(dtype=float)
    low = scored.loc[scored["tss"] < median, "correct_rate"].to_numpy(dtype=float)
    result = {
        "tss_median": median,
        "high_tss_correctness": float(high.mean()) if len(high) else None,
        "low_tss_correctness": float(low.mean()) if len(low) else None,
        "n_high": len(high),
        "n_low": len(low),
        "high_ci95": _t_interval_or_point(pd.Series(high)),
        "low_ci95": _t_interval_or_point(pd.Series(low)),
    }
    if not (len(high) and len(low)):
        return result | {"error": "every cell sits on one side of the median TSS"}
    test = stats.ttest_ind(high, low)
    pooled = np.sqrt((np.var(high) + np.var(low)) / 2)
    return result | {
        "cohens_d": float((high.mean() - low.mean()) / pooled) if pooled > 0 else 0.0,
        "t": float(test.statistic),
        "p": float(test.pvalue),
    }


def _split_half(analysed: pd.DataFrame) -> dict[str, Any]:
    cells = analysed[analysed["paper_split_tss_odd"].notna()]
    _require(
        len(cells) >= 3,
        f"needs three analysed cells of at least {SPLIT_HALF_MIN_RUNS} runs, has {len(cells)}",
    )
    odd, even = cells["paper_split_tss_odd"], cells["paper_split_tss_even"]
    pearson, spearman = stats.pearsonr(odd, even), stats.spearmanr(odd, even)
    return {
        "tss_pearson_r": float(pearson.statistic),
        "tss_pearson_ci95": fisher_interval(float(pearson.statistic), len(cells)),
        "p": float(pearson.pvalue),
        "tss_spearman_rho": float(spearman.statistic),
        "spearman_p": float(spearman.pvalue),
        "n_cells": len(cells),
    }


def _completion(frame: pd.DataFrame) -> dict[str, dict[str, int]]:
    """split_half.py: runs with a final response and no error, of all runs, per model."""
    totals = frame.groupby("model")[["n_completed", "n_runs"]].sum()
    return {
        str(model): {"completed": int(row["n_completed"]), "total": int(row["n_runs"])}
        for model, row in totals.iterrows()
    }
