"""The raters page: agreement among clinicians per study and round, pairwise clinician
agreement, each clinician against the reference over a rolling window (drift), and realism by
case attribute with the least realistic cases.
"""

from __future__ import annotations

import html
import statistics
from collections import Counter, defaultdict

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.dashboards.common import agree, page_summary
from annotation.dashboards.figures import apply_layout, empty_figure, figure, score_colours
from annotation.dashboards.loading import Dataset, study_kind, to_ratings
from annotation.dashboards.tables import table
from patientagentbench.cases.attribute_labels import attribute_label, value_label

LEAST_REALISTIC = 15
DRIFT_WINDOW = 20  # comparisons with the reference in each clinician's rolling window


# --- inter-rater reliability ------------------------------------------------------------------------


def raters_page(ds: Dataset) -> dict:
    alpha, not_computable = _alpha_tables(ds)
    tables = {
        "alpha": alpha,
        "alpha_not_computable": not_computable,
        "matrix": _matrix_table(ds),
        "drift": _drift_table(ds),
        "realism": _realism_table(ds),
        "least_realistic": _least_realistic_table(ds),
    }
    dimension = ds.filters.dimension or _first_scored(ds)
    realism_by = ds.filters.realism_by or _default_attribute(ds)
    figures = {
        "matrix": figure(
            _matrix_figure(ds, dimension),
            "matrix",
            f"Pairwise clinician agreement · {ds.label(dimension)}",
        ),
        "drift": figure(_drift_figure(ds), "drift", "Drift: agreement with reference scores"),
        "realism": figure(
            _realism_figure(ds, realism_by),
            "realism",
            f"Realism by case {attribute_label(realism_by).lower()}",
        ),
    }
    summary = page_summary(ds) | {"matrix_dimension": dimension, "realism_by": realism_by}
    return {"summary": summary, "tables": tables, "figures": figures}


def _alpha_tables(ds: Dataset) -> tuple[dict, dict]:
    """The alpha table leads the page with the rows that have a value; rows that cannot be
    computed (one clinician, no shared item, no variation) go to a second table, summed up
    in one line ("3 not computable: …") so they do not crowd out the figures."""
    rows = _alpha_rows(ds)
    shown = [r for r in rows if r["alpha_ordinal"].get("value") is not None]
    hidden = [r for r in rows if r["alpha_ordinal"].get("value") is None]
    for row in hidden:
        row["why"] = row["alpha_ordinal"].get("reason") or "undefined"
    columns = [
        ("study", "Study or round", "text"),
        ("kind", "Kind", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Shared items", "int"),
        ("raters", "Clinicians", "int"),
        ("alpha_ordinal", "α ordinal", "est"),
        ("alpha_pass_fail", "α pass/fail", "est"),
        ("fleiss_kappa", "Fleiss κ (nominal)", "est"),
        ("alpha_with_jury", "α ordinal, with the jury as one more rater", "est"),
    ]
    note = (
        f"Krippendorff's alpha (krippendorff package): ordinal on the {ds.rubric.scale.span} "
        f"scores, nominal on pass/fail (≥ {ds.rubric.pass_threshold}), over items scored by 2 or "
        "more clinicians; Fleiss' kappa (nominal: neighbouring scores count as disagreement, "
        "hence lower) over the items with "
        "the most common number of clinicians. Bootstrap 95% CIs resample items; hover a "
        "figure for its n and method."
    )
    alpha = table("Agreement among clinicians, per study and round", columns, shown, note)
    reasons = Counter(r["why"] for r in hidden)
    alpha["not_computable"] = (
        f"{len(hidden)} not computable ("
        + "; ".join(f"{n} × {why}" for why, n in reasons.most_common())
        + ")"
        if hidden
        else ""
    )
    why_columns = [
        ("study", "Study or round", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Shared items", "int"),
        ("raters", "Clinicians", "int"),
        ("why", "Why alpha has no value", "text"),
    ]
    not_computable = table(
        "Rows where alpha cannot be computed", why_columns, hidden, "", empty="None."
    )
    return alpha, not_computable


def _alpha_rows(ds: Dataset) -> list[dict]:
    rows = []
    ordered = sorted(ds.studies.values(), key=lambda s: (s["kind"] != "calibration", s["pk"]))
    for study in ordered:
        scores = [s for s in ds.scores if s.study == study["pk"]]
        # No verdict here: the alpha table shows none (the jury page has it).
        result = agree(
            to_ratings(scores, ds.jury),
            ds.filters.margin,
            verdict_resamples=0,
            scale=ds.rubric.scale,
        )
        for key in ds.dimension_order(result):
            r = result[key]
            rows.append(
                {
                    "study": study["name"],
                    "kind": study_kind(study["kind"]),
                    "dimension": ds.label(key),
                    "items": r["alpha"]["n_items"],
                    "raters": r["alpha"]["n_raters"],
                    "alpha_ordinal": r["alpha"]["ordinal"],
                    "alpha_pass_fail": r["alpha"]["pass_fail"],
                    "fleiss_kappa": r["fleiss_kappa"],
                    "alpha_with_jury": (r["alpha_with_jury"] or {}).get("ordinal")
                    or {"value": None, "reason": "the jury did not score this dimension"},
                }
            )
    return rows


def _first_scored(ds: Dataset) -> str:
    present = {s.dimension for s in ds.scores}
    keys = [d.key for d in ds.rubric.dimensions if d.key in present]
    return keys[0] if keys else (ds.rubric.dimensions[0].key if ds.rubric.dimensions else "")


def _matrix_table(ds: Dataset) -> dict:
    rows = []
    for key in ds.dimension_order({s.dimension for s in ds.scores}):
        for (first, second), pair in sorted(ds.matrix(key).items()):
            rows.append(
                {
                    "dimension": ds.label(key),
                    "first": first,
                    "second": second,
                    "items": pair.n_items,
                    "adjacent": pair.adjacent.value,
                    "exact": pair.exact.value,
                    "weighted_kappa": pair.weighted_kappa.value,
                }
            )
    columns = [
        ("dimension", "Dimension", "text"),
        ("first", "Clinician", "text"),
        ("second", "Clinician", "text"),
        ("items", "Shared items", "int"),
        ("adjacent", "Adjacent", "num"),
        ("exact", "Exact", "num"),
        ("weighted_kappa", "Weighted κ", "num"),
    ]
    note = "Every pair of clinicians who scored the same items, on those items (point values)."
    return table("Pairwise clinician agreement", columns, rows, note)


def _drift_table(ds: Dataset) -> dict:
    by_clinician: dict[str, list[dict]] = defaultdict(list)
    for point in _drift_points(ds):
        by_clinician[point["clinician"]].append(point)
    rows = []
    for code, points in sorted(by_clinician.items()):
        half = len(points) // 2
        rows.append(
            {
                "clinician": code,
                "comparisons": len(points),
                "adjacent": _share(points, "adjacent"),
                "exact": _share(points, "exact"),
                "first_half": _share(points[:half], "adjacent"),
                "second_half": _share(points[half:], "adjacent"),
                "latest": points[-1]["rolling_adjacent"],
                "last_at": points[-1]["submitted_at"][:16].replace("T", " "),
            }
        )
    columns = [
        ("clinician", "Clinician", "text"),
        ("comparisons", "Comparisons", "int"),
        ("adjacent", "Adjacent", "pct"),
        ("exact", "Exact", "pct"),
        ("first_half", "Adjacent, earlier half", "pct"),
        ("second_half", "Adjacent, later half", "pct"),
        ("latest", f"Adjacent, last {DRIFT_WINDOW}", "pct"),
        ("last_at", "Last scored", "text"),
    ]
    note = (
        "Each clinician's scores on reference items (hidden reference items in studies, every "
        "item of a calibration round) against the reference score, by submission time. A "
        "clinician drifting from the reference shows a later half below the earlier one."
    )
    empty = (
        "No scores on reference items with a reference score yet. Give a study a hidden "
        "reference share and write those items' references."
    )
    return table("Each clinician against the reference", columns, rows, note, empty)


def _share(points: list[dict], key: str) -> float | None:
    return sum(p[key] for p in points) / len(points) if points else None


def _default_attribute(ds: Dataset) -> str:
    values: dict[str, set[str]] = defaultdict(set)
    for conversation in ds.conversations.values():
        for key in conversation.attributes:
            values[key].update(conversation.values_of(key))
    usable = sorted(k for k, v in values.items() if len(v) >= 2)
    preferred = [k for k in ("category", "severity", "personality") if k in usable]
    return (preferred or usable or ["category"])[0]


def _realism_ends(ds: Dataset) -> str:
    """How the realism scale reads at its ends: "1 implausible … 5 indistinguishable from real"."""
    levels = ds.rubric.realism[0].levels if ds.rubric.realism else ()
    if not levels:
        return f"scores {ds.rubric.scale.span}"
    low, high = levels[0], levels[-1]
    return f"{low.score} {low.label.lower()} … {high.score} {high.label.lower()}"


def _realism_table(ds: Dataset) -> dict:
    attribute = ds.filters.realism_by or _default_attribute(ds)
    rows = []
    points = ds.rubric.scale.points
    for (value, dimension), counter in sorted(_realism_counts(ds, attribute).items()):
        scores = list(counter.elements())
        rows.append(
            {
                "value": value_label(attribute, value),
                "dimension": ds.label(dimension),
                "n": len(scores),
                "mean": statistics.fmean(scores),
                "sd": statistics.pstdev(scores),
                **{f"s{s}": counter.get(s, 0) for s in points},
            }
        )
    columns = [
        ("value", attribute_label(attribute), "text"),
        ("dimension", "Dimension", "text"),
        ("n", "Ratings", "int"),
        ("mean", "Mean", "num"),
        ("sd", "SD", "num"),
        *[(f"s{s}", f"{s}s", "int") for s in points],
    ]
    note = f"Every clinician's realism ratings (whatever their track), {_realism_ends(ds)}."
    return table(f"Realism by case {attribute_label(attribute).lower()}", columns, rows, note)


def _least_realistic_table(ds: Dataset) -> dict:
    keys = set(_realism_keys(ds))
    per_case: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for score in ds.scores:
        conversation = ds.conversation_of(score)
        if score.dimension in keys and score.score is not None and conversation:
            per_case[(conversation.suite, conversation.case)][score.dimension].append(score.score)
    rows = []
    for (suite, case), by_dim in per_case.items():
        every = [s for scores in by_dim.values() for s in scores]
        row = {"case": case, "suite": suite, "mean": statistics.fmean(every), "n": len(every)}
        row |= {k: statistics.fmean(v) for k, v in by_dim.items()}
        rows.append(row)
    rows.sort(key=lambda r: (r["mean"], r["case"]))
    columns = [
        ("case", "Case", "text"),
        ("suite", "Case set", "text"),
        ("mean", "Mean realism", "num"),
        ("n", "Ratings", "int"),
        *[(k, ds.label(k), "num") for k in _realism_keys(ds)],
    ]
    note = (
        f"The {LEAST_REALISTIC} cases clinicians found least realistic (mean over both realism "
        "dimensions and every clinician), for the scenario authors."
    )
    return table("Least realistic cases", columns, rows[:LEAST_REALISTIC], note)


# --- drift and realism readings ------------------------------------------------------------------


def _drift_points(ds: Dataset) -> list[dict]:
    """Each comparison of a clinician's score with an item's reference score, oldest first,
    with the clinician's rolling agreement over their last `DRIFT_WINDOW` comparisons."""
    points = []
    windows: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for score in sorted(ds.scores, key=lambda s: (s.at, s.rater, int(s.item), s.dimension)):
        if score.reference is None or score.score is None:
            continue
        window = windows[score.rater]
        hit = (abs(score.score - score.reference) <= 1, score.score == score.reference)
        window.append(hit)
        recent = window[-DRIFT_WINDOW:]
        points.append(
            {
                "clinician": score.rater,
                "submitted_at": score.at.isoformat(),
                "study": ds.studies.get(score.study, {}).get("name", score.study),
                "trace": int(score.item),
                "dimension": score.dimension,
                "score": score.score,
                "reference": score.reference,
                "adjacent": int(hit[0]),
                "exact": int(hit[1]),
                "rolling_adjacent": sum(a for a, _ in recent) / len(recent),
                "rolling_exact": sum(e for _, e in recent) / len(recent),
            }
        )
    return points


def _realism_keys(ds: Dataset) -> list[str]:
    return [d.key for d in ds.rubric.realism]


def _realism_counts(ds: Dataset, attribute: str) -> dict[tuple[str, str], Counter[int]]:
    counts: dict[tuple[str, str], Counter[int]] = defaultdict(Counter)
    keys = set(_realism_keys(ds))
    for score in ds.scores:
        conversation = ds.conversation_of(score)
        if score.dimension in keys and score.score is not None and conversation:
            for value in conversation.values_of(attribute) or ["(none)"]:
                counts[(value, score.dimension)][score.score] += 1
    return counts


# --- figures -------------------------------------------------------------------------------------


def _matrix_figure(ds: Dataset, dimension: str) -> go.Figure:
    title = f"Adjacent agreement between clinicians · {ds.label(dimension)}"
    matrix = ds.matrix(dimension)
    if not matrix:
        return empty_figure(title, "no two clinicians scored the same item")
    codes = sorted({c for pair in matrix for c in pair})
    z = np.full((len(codes), len(codes)), np.nan)
    text = [["" for _ in codes] for _ in codes]
    for (first, second), pair in matrix.items():
        i, j = codes.index(first), codes.index(second)
        value = pair.adjacent.value
        for a, b in ((i, j), (j, i)):
            z[a, b] = np.nan if value is None else value
            text[a][b] = "—" if value is None else f"{value:.2f}<br>n={pair.n_items}"
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=codes,
            y=codes,
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": "adjacent"},
            hovertemplate="%{y} & %{x}: %{z:.2f}<extra></extra>",
        )
    )
    size = max(360, 60 * len(codes) + 160)
    return apply_layout(fig, title, height=size, yaxis={"autorange": "reversed"})


def _drift_figure(ds: Dataset) -> go.Figure:
    title = f"Rolling adjacent agreement with the reference (last {DRIFT_WINDOW} comparisons)"
    points = _drift_points(ds)
    if not points:
        return empty_figure(title, "no scores on reference items with a reference score yet")
    fig = go.Figure()
    for code in sorted({p["clinician"] for p in points}):
        mine = [p for p in points if p["clinician"] == code]
        fig.add_trace(
            go.Scatter(
                x=[p["submitted_at"] for p in mine],
                y=[p["rolling_adjacent"] for p in mine],
                mode="lines+markers",
                name=code,
                hovertemplate="%{x}<br>%{y:.0%}<extra>" + html.escape(code) + "</extra>",
            )
        )
    return apply_layout(
        fig,
        title,
        yaxis={"title": "adjacent agreement", "range": [0, 1.05], "tickformat": ".0%"},
        xaxis={"title": "submitted"},
    )


def _realism_figure(ds: Dataset, attribute: str) -> go.Figure:
    title = f"Realism ratings by case {attribute_label(attribute).lower()} (share of ratings)"
    counts = _realism_counts(ds, attribute)
    keys = [k for k in _realism_keys(ds) if any(d == k for _, d in counts)]
    if not keys:
        return empty_figure(title, "no realism ratings yet")
    fig = make_subplots(
        rows=1, cols=len(keys), shared_yaxes=True, subplot_titles=[ds.label(k) for k in keys]
    )
    points = ds.rubric.scale.points
    colours = score_colours(len(points))
    values = sorted({v for v, _ in counts})
    # The axis reads "provider access", "45–64", never the stored snake_case value.
    shown = [value_label(attribute, v) for v in values]
    for col, key in enumerate(keys, start=1):
        totals = {v: sum(counts[(v, key)].values()) or 1 for v in values}
        for score, colour in zip(points, colours, strict=True):
            fig.add_trace(
                go.Bar(
                    y=shown,
                    x=[counts[(v, key)].get(score, 0) / totals[v] for v in values],
                    orientation="h",
                    name=str(score),
                    marker_color=colour,
                    legendgroup=str(score),
                    showlegend=col == 1,
                    hovertemplate="%{y}: %{x:.0%} scored " + str(score) + "<extra></extra>",
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(tickformat=".0%", range=[0, 1])
    height = max(320, 28 * len(values) + 160)
    return apply_layout(fig, title, barmode="stack", height=height, legend={"title": "score"})
