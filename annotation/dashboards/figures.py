"""Every plotly figure of the dashboards, built from plain data and kept as a rendered fragment
plus its JSON (`figure`), so the cache holds no live plotly objects and a figure can be
downloaded as a standalone HTML file (`figure_file`). The shared layout lives here so the
pages look alike.
"""

from __future__ import annotations

import html
import math
import secrets
import statistics
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from annotation import agreement
from annotation.dashboards.common import (
    CELL_METRICS,
    DRIFT_WINDOW,
    QUALITY_DIMENSIONS,
    _drift_points,
    _item_scores,
    _realism_counts,
    _realism_keys,
)
from annotation.dashboards.loading import Dataset
from patientagentbench.analysis.figures import LAYOUT, figure_document, figure_html
from ratings.scale import SCORES

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


# --- figures as plain data, and the shared layout ------------------------------------------------


def figure(fig: go.Figure, name: str, title: str, note: str = "") -> dict:
    """A figure for the page (a div; plotly.js is served by the page itself) and as JSON for
    the HTML download and the study bundle.

    The div's id is new with every computation: htmx, swapping in a new rendering, gives an
    element with the same id as an old one the old one's class and style until it settles,
    so plotly would draw into the old classes and lose its own when htmx restores the new."""
    stem = f"dashboard-{name}"
    return {
        "title": title,
        "note": note,
        "div": figure_html(fig, div_id=f"fig-{name}-{secrets.token_hex(4)}", filename=stem),
        "json": fig.to_json(),
    }


def figure_file(data: Mapping[str, Any], name: str) -> str:
    """The standalone HTML download (plotly.js embedded: it opens offline)."""
    return figure_document(pio.from_json(data["json"]), filename=f"dashboard-{name}")


def _layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    layout = dict(LAYOUT) | {"title": title} | extra
    return fig.update_layout(**layout)


def _grid(n: int, columns: int = 3) -> tuple[int, int]:
    cols = max(1, min(columns, n))
    return max(1, math.ceil(n / cols)), cols


def _empty_figure(title: str, reason: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=reason, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return _layout(fig, title, xaxis={"visible": False}, yaxis={"visible": False}, height=260)


# --- the jury page -------------------------------------------------------------------------------


def _jitter(trace: int, salt: int) -> float:
    """A small, repeatable offset so items with the same scores do not hide each other."""
    return ((trace * 2654435761 + salt * 40503) % 1000 / 1000 - 0.5) * 0.24


def _scatter(ds: Dataset, dims: list[str]) -> go.Figure:
    title = "Jury score vs the clinicians' mean, per item (band: within 1 point)"
    if not dims or ds.jury is None:
        return _empty_figure(title, "no jury scores on these conversations")
    rows, cols = _grid(len(dims))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[ds.label(d) for d in dims])
    per_item = _item_scores(ds, dims)
    for i, key in enumerate(dims):
        row, col = divmod(i, cols)
        _band(fig, row + 1, col + 1, legend=i == 0)
        points = [
            (trace, statistics.fmean(scores), ds.jury.scores.get((trace, key)))
            for trace, scores in sorted(per_item[key].items())
        ]
        points = [(t, m, j) for t, m, j in points if j is not None and j[0] is not None]
        for inside in (True, False):
            chosen = [(t, m, j) for t, m, j in points if (abs(j[0] - m) <= 1) == inside]
            fig.add_trace(_points(ds, chosen, inside, legend=i == 0), row=row + 1, col=col + 1)
    fig.update_xaxes(range=[0.5, 5.5], dtick=1, title_text="clinicians' mean")
    fig.update_yaxes(range=[0.5, 5.5], dtick=1, title_text="jury")
    return _layout(fig, title, height=330 * rows)


def _band(fig: go.Figure, row: int, col: int, legend: bool) -> None:
    x = [0.5, 5.5, 5.5, 0.5]
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[-0.5, 4.5, 6.5, 1.5],
            fill="toself",
            mode="lines",
            line={"width": 0},
            fillcolor="rgba(31,111,235,0.10)",
            name="±1 band",
            showlegend=legend,
            legendgroup="band",
            hoverinfo="skip",
        ),
        row=row,
        col=col,
    )
    fig.add_trace(
        go.Scatter(
            x=[0.5, 5.5],
            y=[0.5, 5.5],
            mode="lines",
            line={"color": "#8c959f", "dash": "dot", "width": 1},
            showlegend=False,
            hoverinfo="skip",
        ),
        row=row,
        col=col,
    )


def _points(ds: Dataset, points: list, inside: bool, legend: bool) -> go.Scatter:
    text = []
    for trace, mean, (score, _status, jury_mean) in points:
        c = ds.conversations.get(trace)
        where = f"{html.escape(c.model)} · {html.escape(c.case)}" if c else ""
        text.append(
            f"trace {trace}<br>{where}<br>clinicians' mean {mean:.2f}"
            f"<br>jury {score} (mean {jury_mean:.2f})"
        )
    return go.Scatter(
        x=[m + _jitter(t, 1) * 0.5 for t, m, _ in points],
        y=[j[0] + _jitter(t, 2) for t, _, j in points],
        mode="markers",
        marker={"size": 6, "color": "#1f6feb" if inside else "#cf222e", "opacity": 0.7},
        name="within 1 point" if inside else "more than 1 apart",
        legendgroup="in" if inside else "out",
        showlegend=legend,
        text=text,
        hovertemplate="%{text}<extra></extra>",
    )


def _confusion(ds: Dataset, dims: list[str]) -> go.Figure:
    title = "Jury score × clinician score, every pair (count)"
    if not dims or ds.jury is None:
        return _empty_figure(title, "no jury scores on these conversations")
    rows, cols = _grid(len(dims))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[ds.label(d) for d in dims],
        horizontal_spacing=0.08,
        vertical_spacing=0.16 if rows > 1 else 0.1,
    )
    per_item = _item_scores(ds, dims)
    for i, key in enumerate(dims):
        counts = np.zeros((5, 5), dtype=int)
        for trace, scores in per_item[key].items():
            jury = ds.jury.scores.get((trace, key))
            if jury and jury[0] is not None:
                for score in scores:
                    counts[jury[0] - 1, score - 1] += 1
        row, col = divmod(i, cols)
        fig.add_trace(
            go.Heatmap(
                z=counts,
                x=list(SCORES),
                y=list(SCORES),
                text=counts,
                texttemplate="%{text}",
                coloraxis="coloraxis",
                hovertemplate="jury %{y}, clinician %{x}: %{z} pairs<extra></extra>",
            ),
            row=row + 1,
            col=col + 1,
        )
    fig.update_xaxes(title_text="clinician", dtick=1)
    fig.update_yaxes(title_text="jury", dtick=1)
    return _layout(fig, title, height=330 * rows, coloraxis={"colorscale": "Blues"})


# --- breakdowns ----------------------------------------------------------------------------------


def _forest(rows: list[dict], margin: float, title: str) -> go.Figure:
    """Each group's (jury − clinician) adjacent-agreement difference with its interval."""
    usable = [r for r in rows if r["difference"]["value"] is not None]
    if not usable:
        return _empty_figure(title, "no group has a difference to show")
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
    return _layout(
        fig,
        title + f" (shaded: the ±{margin:g} margin)",
        height=height,
        scattermode="group",
        xaxis={"title": "jury − clinician adjacent agreement"},
    )


# --- the raters page -----------------------------------------------------------------------------


def _matrix_figure(ds: Dataset, dimension: str) -> go.Figure:
    title = f"Adjacent agreement between clinicians · {ds.label(dimension)}"
    matrix = ds.matrix(dimension)
    if not matrix:
        return _empty_figure(title, "no two clinicians scored the same item")
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
    return _layout(fig, title, height=size, yaxis={"autorange": "reversed"})


def _drift_figure(ds: Dataset) -> go.Figure:
    title = f"Rolling adjacent agreement with the reference (last {DRIFT_WINDOW} comparisons)"
    points = _drift_points(ds)
    if not points:
        return _empty_figure(title, "no scores on reference items with a reference score yet")
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
    return _layout(
        fig,
        title,
        yaxis={"title": "adjacent agreement", "range": [0, 1.05], "tickformat": ".0%"},
        xaxis={"title": "submitted"},
    )


def _realism_figure(ds: Dataset, attribute: str) -> go.Figure:
    title = f"Realism ratings by case {attribute} (share of ratings)"
    counts = _realism_counts(ds, attribute)
    keys = [k for k in _realism_keys(ds) if any(d == k for _, d in counts)]
    if not keys:
        return _empty_figure(title, "no realism ratings yet")
    fig = make_subplots(
        rows=1, cols=len(keys), shared_yaxes=True, subplot_titles=[ds.label(k) for k in keys]
    )
    colours = ("#cf222e", "#e16f24", "#bf8700", "#2da44e", "#116329")
    values = sorted({v for v, _ in counts})
    for col, key in enumerate(keys, start=1):
        totals = {v: sum(counts[(v, key)].values()) or 1 for v in values}
        for score, colour in zip(SCORES, colours, strict=True):
            fig.add_trace(
                go.Bar(
                    y=values,
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
    return _layout(fig, title, barmode="stack", height=height, legend={"title": "score"})


# --- the quality page ----------------------------------------------------------------------------


def _quality_figure(cells: list[dict]) -> go.Figure:
    title = "Cell consistency vs the clinicians' mean (one point per cell)"
    usable = [
        c for c in cells if any(c[m] is not None for m in CELL_METRICS) and c["conversations"]
    ]
    if not usable or not any(c[d] is not None for c in usable for d in QUALITY_DIMENSIONS):
        return _empty_figure(title, "no cell has both a consistency figure and clinician scores")
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
    return _layout(fig, title, height=620)


# --- the study planner ---------------------------------------------------------------------------


def _plan_figure(designs: list[dict], plan: agreement.PlanResult) -> go.Figure:
    """The widest dimension's median width per design: one line per overlap, for alpha and
    for the jury-minus-clinician difference; the target dashed; the recommendation starred."""
    title = f"Widest dimension's median CI width (dashed: target {plan.target_width:g})"
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["Krippendorff's α (ordinal)", "Jury − clinician adjacent agreement"],
    )
    for col, key in enumerate(("alpha_width", "difference_width"), start=1):
        for i, overlap in enumerate(sorted({d["overlap"] for d in designs})):
            mine = sorted((d for d in designs if d["overlap"] == overlap), key=lambda d: d["items"])
            fig.add_trace(
                go.Scatter(
                    x=[d["items"] for d in mine],
                    y=[d[key] for d in mine],
                    mode="lines+markers",
                    line={"color": PALETTE[i % len(PALETTE)]},
                    name=f"{overlap} clinicians per item",
                    legendgroup=str(overlap),
                    showlegend=col == 1,
                ),
                row=1,
                col=col,
            )
        fig.add_hline(
            y=plan.target_width, line={"dash": "dash", "color": "#cf222e"}, row=1, col=col
        )
        chosen = [d for d in designs if d["recommended"] and d[key] is not None]
        fig.add_trace(
            go.Scatter(
                x=[d["items"] for d in chosen],
                y=[d[key] for d in chosen],
                mode="markers",
                marker={"symbol": "star", "size": 16, "color": "#1a7f37"},
                name="recommended",
                showlegend=col == 1 and bool(chosen),
            ),
            row=1,
            col=col,
        )
    ticks = sorted({d["items"] for d in designs})
    fig.update_xaxes(title_text="items (conversations)", tickvals=ticks)
    fig.update_yaxes(title_text="CI width", rangemode="tozero")
    return _layout(fig, title)
