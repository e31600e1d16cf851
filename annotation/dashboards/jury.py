"""The jury page: whether the jury's scores fall inside the clinicians' envelope, per dimension
and per comparison mode, with the verdicts left out and the scatter and confusion figures.
"""

from __future__ import annotations

from annotation import agreement
from annotation.dashboards.breakdowns import breakdown
from annotation.dashboards.common import _agree, _summary
from annotation.dashboards.figures import _confusion, _scatter, figure
from annotation.dashboards.loading import Dataset
from annotation.dashboards.tables import table
from jury.verdicts import STATUS_WORDS

MODE_LABELS = {
    "every_pair": "every jury–clinician pair",
    "clinician_mean": "jury vs the clinicians' mean",
    "mean_within_1": "mean, clinicians > 1 away left out",
    "mean_within_2": "mean, clinicians > 2 away left out",
}


# --- jury vs clinicians ----------------------------------------------------------------------------


def jury_page(ds: Dataset) -> dict:
    result = _agree(ds.ratings(), ds.filters.margin)
    dims = [d for d in ds.dimension_order(result) if result[d]["has_jury"]]
    tables = {
        "envelope": _envelope_table(ds, result, dims),
        "jury": _jury_table(ds, result, dims),
        "modes": _modes_table(ds, result, dims),
        "excluded": _excluded_table(ds, result),
    }
    figures = {
        "scatter": figure(_scatter(ds, dims), "scatter", "Jury vs clinicians' mean, per item"),
        "confusion": figure(_confusion(ds, dims), "confusion", "Jury × clinician scores"),
    }
    if ds.filters.breakdown:
        tables["breakdown"], figures["breakdown"] = breakdown(ds, ds.filters.breakdown)
    return {"summary": _summary(ds), "tables": tables, "figures": figures}


def _envelope_table(ds: Dataset, result: dict, dims: list[str]) -> dict:
    margin = ds.filters.margin
    rows = []
    for key in dims:
        envelope = result[key]["envelope"]
        rows.append(
            {
                "track": ds.track(key),
                "dimension": ds.label(key),
                "items": envelope["n_items"],
                "jury_adjacent": envelope["jury_adjacent"],
                "clinician_adjacent": envelope["clinician_adjacent"],
                "difference": envelope["difference"],
                "verdict": envelope["verdict"],
            }
        )
    note = (
        "On items with a jury score and 2 or more clinicians: adjacent agreement (within 1 "
        "point) of the jury with each clinician, of the clinicians with each other, and the "
        "difference with a paired bootstrap 95% CI resampling items. Inside the human "
        f"envelope when that CI lies within ±{margin:g}; outside when it lies wholly beyond; "
        "otherwise inconclusive (more items narrow it)."
    )
    columns = [
        ("track", "Track", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("jury_adjacent", "Jury–clinician adjacent", "est"),
        ("clinician_adjacent", "Clinician–clinician adjacent", "est"),
        ("difference", "Difference", "est"),
        ("verdict", f"Verdict (margin ±{margin:g})", "verdict"),
    ]
    return table("Is the jury inside the human envelope?", columns, rows, note)


def _jury_table(ds: Dataset, result: dict, dims: list[str]) -> dict:
    rows = []
    for key in dims:
        pairs = result[key]["modes"]["every_pair"]
        rows.append(
            {
                "track": ds.track(key),
                "dimension": ds.label(key),
                "items": pairs["n_items"],
                "pairs": pairs["n_pairs"],
                **{name: pairs[name] for name in agreement.FIGURES},
            }
        )
    columns = [
        ("track", "Track", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("pairs", "Pairs", "int"),
        ("exact", "Exact", "est"),
        ("adjacent", "Adjacent (±1)", "est"),
        ("weighted_kappa", "Weighted κ", "est"),
        ("pearson", "Pearson r", "est"),
        ("mae", "MAE", "est"),
        ("bias", "Bias (jury − clinician)", "est"),
    ]
    note = (
        "Every jury–clinician pair on an item; quadratic-weighted Cohen's kappa; bias > 0 means "
        "the jury scored higher."
    )
    return table("Jury vs clinicians: every pair", columns, rows, note)


def _modes_table(ds: Dataset, result: dict, dims: list[str]) -> dict:
    rows = [
        {
            "dimension": ds.label(key),
            "mode": MODE_LABELS[mode],
            "items": stats_["n_items"],
            "pairs": stats_["n_pairs"],
            "adjacent": stats_["adjacent"],
            "exact": stats_["exact"],
            "weighted_kappa": stats_["weighted_kappa"],
            "mae": stats_["mae"],
            "bias": stats_["bias"],
            "left_out": stats_["left_out"],
        }
        for key in dims
        for mode, stats_ in result[key]["modes"].items()
    ]
    columns = [
        ("dimension", "Dimension", "text"),
        ("mode", "Mode", "text"),
        ("items", "Items", "int"),
        ("pairs", "Pairs", "int"),
        ("adjacent", "Adjacent", "est"),
        ("exact", "Exact", "est"),
        ("weighted_kappa", "Weighted κ", "est"),
        ("mae", "MAE", "est"),
        ("bias", "Bias", "est"),
        ("left_out", "Clinician scores left out", "int"),
    ]
    note = (
        "PatientAgentBench's four modes. Against the clinicians' mean, exact, adjacent and kappa "
        "use the mean rounded half up (2.5 → 3); MAE and bias use the unrounded mean."
    )
    return table("The four modes", columns, rows, note)


def _excluded_table(ds: Dataset, result: dict) -> dict:
    rows = [
        {
            "dimension": ds.label(key),
            "rater": kind,
            "reason": STATUS_WORDS.get(reason, reason),
            "count": count,
        }
        for key in ds.dimension_order(result)
        for kind, reasons in result[key]["excluded"].items()
        for reason, count in reasons.items()
    ]
    columns = [
        ("dimension", "Dimension", "text"),
        ("rater", "Rater", "text"),
        ("reason", "Reason", "text"),
        ("count", "Ratings left out", "int"),
    ]
    note = "Not applicable, unparseable and error ratings are never numbers: left out, counted."
    return table("Left out", columns, rows, note, empty="Nothing was left out.")
