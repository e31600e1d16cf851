"""Breakdowns, shared by the jury and quality pages: the jury–clinician envelope per model,
case attribute value, judge of the panel or panel, as a table and a forest plot, with
`BREAKDOWN_RESAMPLES` because the groups are many and small.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Iterable

import plotly.graph_objects as go

from annotation.dashboards.common import (
    BREAKDOWN_RESAMPLES,
    BREAKDOWN_VERDICT_RESAMPLES,
    agree,
)
from annotation.dashboards.figures import apply_layout, empty_figure, figure
from annotation.dashboards.loading import Dataset, jury_scores
from annotation.dashboards.tables import table
from annotation.pure import agreement
from jury.models import Panel, Verdict
from patientagentbench.cases.attribute_labels import attribute_label, value_label
from ratings.rating import Rating

# --- breakdowns: by model, case attribute, judge or panel ---------------------------------------


def breakdown(ds: Dataset, by: str) -> tuple[dict, dict]:
    """The envelope per group: each model's (or case attribute value's) conversations, or each
    judge of the panel, or each panel, as the jury."""
    rows = []
    for group, ratings in _groups(ds, by):
        # Only the dimensions the jury scored: the others have no envelope to show.
        judged = {r.dimension for r in ratings if r.kind == agreement.JURY}
        mine = [r for r in ratings if r.dimension in judged]
        result = agree(
            mine,
            ds.filters.margin,
            BREAKDOWN_RESAMPLES,
            BREAKDOWN_VERDICT_RESAMPLES,
            ds.filters.epsilon,
            ds.rubric.scale,
        )
        for key in ds.dimension_order(result):
            if result[key]["has_jury"]:
                rows.append(_breakdown_row(ds, group, key, result[key]))
    if by in RANKED:
        rows = ranked(rows)
    label = _breakdown_label(by)
    columns = [
        ("group", _group_heading(by), "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("jury_adjacent", "Jury–clinician adjacent", "est"),
        ("clinician_adjacent", "Clinician–clinician adjacent", "est"),
        ("difference", "Adjacent difference", "est"),
        ("kappa_difference", "κ difference", "est"),
        ("verdict", "Verdict", "verdict"),
        ("alt_rank", "Rank by ρ", "int"),
        ("alt_rho", "Alt-test ρ", "num"),
        ("alt_wins", "Alt-test wins", "text"),
        ("alt_verdict", f"Alt-test (ε {ds.filters.epsilon:g})", "verdict"),
        ("exact", "Exact", "est"),
        ("weighted_kappa", "Weighted κ", "est"),
        ("mae", "MAE", "est"),
        ("bias", "Bias", "est"),
    ]
    note = (
        f"The same figures within each group ({BREAKDOWN_RESAMPLES} resamples per interval, "
        f"{BREAKDOWN_VERDICT_RESAMPLES:,} for each verdict: fewer than above, with small "
        "groups and many intervals; hover for the Monte-Carlo error). Intervals widen as "
        "groups shrink; a group under the minimum of items says not enough evidence. Alt-test "
        "per group on the scores, its dimension alone: ρ is the jury's average advantage "
        "probability (the share of items on which it aligns with the other clinicians at least "
        "as well as the clinician left out, averaged over clinicians), the paper's measure for "
        "ranking judges: by judge or by panel, each dimension's groups are ranked by it "
        "(highest first; no rank without a ρ). ρ is a point figure, not a test."
    )
    title = f"Jury vs clinicians {label}"
    data = table(title, columns, rows, note, empty="No group has jury and clinician scores.")
    return data, figure(_forest(rows, ds.filters.margin, title), "breakdown", title)


def _group_heading(by: str) -> str:
    return attribute_label(by[5:]) if by.startswith("attr:") else by.capitalize()


def _breakdown_label(by: str) -> str:
    if by.startswith("attr:"):
        return f"by case {attribute_label(by[5:]).lower()}"
    return f"by {by}"


def _groups(ds: Dataset, by: str) -> Iterable[tuple[str, list[Rating]]]:
    traces = sorted(ds.conversations)
    if by == "model":
        for model in ds.models:
            chosen = {t for t, c in ds.conversations.items() if c.model == model}
            yield model, ds.ratings(chosen)
    elif by.startswith("attr:"):
        values: dict[str, set[int]] = defaultdict(set)
        for trace, conversation in ds.conversations.items():
            for value in conversation.values_of(by[5:]):
                values[value].add(trace)
        for value in sorted(values):
            yield value_label(by[5:], value), ds.ratings(values[value])
    elif by == "judge" and ds.panel is not None:
        for judge in ds.panel.judges.order_by("name"):
            yield judge.name, ds.ratings(jury=jury_scores(ds.panel, traces, judge))
    elif by == "panel":
        scored = Verdict.objects.filter(trace_id__in=traces).values("panel").distinct()
        for panel in Panel.objects.filter(pk__in=scored).order_by("name"):
            yield panel.name, ds.ratings(jury=jury_scores(panel, traces))


RANKED = ("judge", "panel")  # breakdowns whose groups are juries, ranked by the alt-test's ρ


def ranked(rows: list[dict]) -> list[dict]:
    """Within each dimension, the groups by ρ, highest first, ranked 1, 2, …; groups without
    a ρ last, unranked. Dimensions keep their order."""
    order = list(dict.fromkeys(r["dimension"] for r in rows))
    out = []
    for dimension in order:
        mine = [r for r in rows if r["dimension"] == dimension]
        mine.sort(key=lambda r: (r["alt_rho"] is None, -(r["alt_rho"] or 0), r["group"]))
        for rank, row in enumerate(mine, 1):
            row["alt_rank"] = rank if row["alt_rho"] is not None else None
        out += mine
    return out


def _breakdown_row(ds: Dataset, group: str, key: str, result: dict) -> dict:
    envelope, pairs = result["envelope"], result["modes"]["every_pair"]
    test = result["alt_test"]["ordinal"]
    return {
        "group": group,
        "dimension": ds.label(key),
        "items": envelope["n_items"],
        "jury_adjacent": envelope["jury_adjacent"],
        "clinician_adjacent": envelope["clinician_adjacent"],
        "difference": envelope["adjacent_difference"],
        "kappa_difference": envelope["kappa_difference"],
        "verdict": envelope["verdict"],
        "alt_rank": None,
        "alt_rho": test["advantage"],
        "alt_wins": f"{test['wins']} of {test['n_clinicians']}" if test["n_clinicians"] else "",
        "alt_verdict": test["verdict"],
        **{name: pairs[name] for name in ("exact", "weighted_kappa", "mae", "bias")},
    }


# --- the forest plot -----------------------------------------------------------------------------


def _forest(rows: list[dict], margin: float, title: str) -> go.Figure:
    """Each group's (jury − clinician) adjacent-agreement difference with its interval."""
    usable = [r for r in rows if r["difference"]["value"] is not None]
    if not usable:
        return empty_figure(title, "no group has a difference to show")
    fig = go.Figure()
    for dimension in dict.fromkeys(r["dimension"] for r in usable):
        mine = [r for r in usable if r["dimension"] == dimension]
        value = [r["difference"]["value"] for r in mine]
        ci = [r["difference"]["ci"] or [v, v] for r, v in zip(mine, value, strict=True)]
        fig.add_trace(
            go.Scatter(
                x=value,
                y=[r["group"] for r in mine],
                mode="markers",
                orientation="h",
                name=dimension,
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [high - v for (_, high), v in zip(ci, value, strict=True)],
                    "arrayminus": [v - low for (low, _), v in zip(ci, value, strict=True)],
                },
                hovertemplate="%{y}: %{x:.2f}<extra>" + html.escape(dimension) + "</extra>",
            )
        )
    fig.add_vrect(x0=-margin, x1=margin, fillcolor="rgba(26,127,55,0.10)", line_width=0)
    fig.add_vline(x=0, line={"color": "#8c959f", "dash": "dot"})
    height = max(300, 40 * len({r["group"] for r in usable}) + 160)
    return apply_layout(
        fig,
        title + f" (shaded: the ±{margin:g} margin)",
        height=height,
        scattermode="group",
        xaxis={"title": "jury − clinician adjacent agreement"},
    )
