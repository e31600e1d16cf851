"""Plotly figures of a study frame (`study.cells_frame`), the paper's figures and ours.

Each figure function takes the frame (and, where the paper published the same numbers, the
values from `load_published` to overlay as a "published (paper)" trace) and returns a
`go.Figure`. `figure_html` renders a div for a page that serves plotly.js itself (no CDN);
its mode bar saves the figure as PNG in the browser. `figure_document` is the standalone
HTML download, with plotly.js embedded so it opens offline.
"""

from __future__ import annotations

import csv
import html
import json
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots
from plotly.utils import PlotlyJSONEncoder
from scipy import stats

from patientagentbench.analysis import statistics

__all__ = [
    "PUBLISHED_NAME",
    "all_figures",
    "by_category",
    "by_difficulty",
    "divergence_histogram",
    "figure_config",
    "figure_document",
    "figure_html",
    "load_published",
    "model_category_heatmap",
    "model_comparison",
    "tss_vs_correctness",
    "unique_sequences_per_model",
]

PUBLISHED_NAME = "published (paper)"
LABELS = {
    "tss": "TSS",
    "ac": "AC",
    "ac_aligned": "AC-aligned",
    "unique_sequences": "Unique sequences",
    "correct_rate": "Correct rate",
}
COLOURS = {
    "tss": "#1f77b4",
    "ac": "#ff7f0e",
    "ac_aligned": "#2ca02c",
    "unique_sequences": "#9467bd",
}
PUBLISHED_MARKER = {"symbol": "diamond", "size": 11, "color": "#222", "line": {"width": 1}}
# Every figure is drawn on plotly_white, set as plotly's default rather than named in LAYOUT:
# a template named in a layout is validated again for every figure (an empty figure took
# 11.4 ms that way, 2.7 ms this way, measured), and the figures' JSON is the same.
pio.templates.default = "plotly_white"
LAYOUT = {"height": 440, "margin": {"t": 70, "r": 20, "b": 60, "l": 60}}

Published = Mapping[str, Any]


# -- the paper's published values ----------------------------------------------------------


def load_published(fixtures_dir: str | Path) -> dict[str, Any]:
    """The seed paper's published tables from paper-model-table.csv,
    paper-category-table.csv and paper-headline-figures.csv, as fractions (the model
    table's output match is a percentage there)."""
    folder = Path(fixtures_dir)
    models = {
        row["model"]: {
            "provider": row["provider"],
            "tss": float(row["tss_mean"]),
            "tss_sd": float(row["tss_sd"]),
            "ac": float(row["ac_mean"]),
            "ac_sd": float(row["ac_sd"]),
            "output_exact_match": float(row["output_exact_match_pct"]) / 100,
            "unique_sequences": float(row["unique_sequences_mean"]),
            "included_in_aggregate": row["included_in_aggregate"].strip().startswith("yes"),
            "note": row["included_in_aggregate"],
        }
        for row in _read_csv(folder / "paper-model-table.csv")
    }
    categories = {
        row["category"]: {
            "tss": float(row["tss"]),
            "ac": float(row["ac"]),
            "unique_sequences": float(row["unique_sequences"]),
        }
        for row in _read_csv(folder / "paper-category-table.csv")
    }
    headline = {
        row["figure"]: {"value": float(row["value"]), "note": _note(row)}
        for row in _read_csv(folder / "paper-headline-figures.csv")
    }
    return {"models": models, "categories": categories, "headline": headline}


def _note(row: dict) -> str:
    """The note column, whole: the file leaves notes such as "95% CI [0.84, 0.90]" unquoted,
    so csv reads their commas as further fields."""
    return ",".join([row["note"], *(row.get(None) or [])])


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# -- figures -------------------------------------------------------------------------------


def model_comparison(frame: pd.DataFrame, published: Published | None = None) -> go.Figure:
    """Mean TSS and AC per model with 95% t-based CIs (the paper's model comparison)."""
    table = statistics.model_table(frame, bootstrap_resamples=0)
    return _metric_panels(
        table,
        "model",
        ("tss", "ac"),
        (published or {}).get("models"),
        "Consistency by model (mean over tasks, 95% CI)",
    )


def by_category(frame: pd.DataFrame, published: Published | None = None) -> go.Figure:
    """Mean TSS and AC per task category (the paper's Table 2 as a chart)."""
    table = statistics.category_table(frame)
    return _metric_panels(
        table,
        "category",
        ("tss", "ac"),
        (published or {}).get("categories"),
        "Consistency by task category (95% CI)",
    )


def by_difficulty(frame: pd.DataFrame) -> go.Figure:
    table = statistics.difficulty_table(frame)
    return _metric_panels(
        table, "difficulty", ("tss", "ac"), None, "Consistency by difficulty (95% CI)"
    )


def unique_sequences_per_model(
    frame: pd.DataFrame, published: Published | None = None
) -> go.Figure:
    """Distinct tool-name sequences per cell, averaged per model (the paper's Table 1)."""
    table = statistics.model_table(frame, bootstrap_resamples=0)
    figure = _metric_panels(
        table,
        "model",
        ("unique_sequences",),
        (published or {}).get("models"),
        "Unique tool sequences per task, by model (95% CI)",
        unit_range=False,
    )
    return figure.update_yaxes(title_text="distinct sequences per cell")


def divergence_histogram(frame: pd.DataFrame) -> go.Figure:
    """Pairs of runs by the step where they first diverge (the paper: 60% in steps 1-2)."""
    histogram = statistics.divergence_histogram(frame)
    if not histogram["counts"]:
        return _empty("First divergence step", "no pair of runs diverged")
    counts = pd.DataFrame(histogram["counts"])
    early = counts["step"] <= 2
    figure = go.Figure(
        go.Bar(
            x=counts["step"],
            y=counts["pairs"],
            name="pairs of runs",
            marker_color=np.where(early, "#d62728", "#7f7f7f").tolist(),
            customdata=counts["share"] * 100,
            hovertemplate="step %{x}: %{y} pairs (%{customdata:.1f}%)<extra></extra>",
        )
    )
    share = histogram["share_steps_1_2"] * 100
    return figure.update_layout(
        **LAYOUT,
        title=f"First divergence step ({share:.0f}% of diverging pairs in steps 1-2)",
        xaxis={"title": "first diverging step", "dtick": 1},
        yaxis={"title": "pairs of runs"},
        showlegend=False,
    )


def tss_vs_correctness(frame: pd.DataFrame, threshold: float | None = None) -> go.Figure:
    """Each cell's TSS against its correct rate, by model, with a least-squares line (when
    both vary) and the split threshold (the median cell TSS, as the paper's code splits)."""
    cells = frame[frame["tss"].notna() & frame["correct_rate"].notna()]
    if cells.empty:
        return _empty("TSS vs correctness", "no cell has both a TSS and a correct rate")
    threshold = float(cells["tss"].median()) if threshold is None else threshold
    figure = go.Figure()
    for model, members in cells.groupby("model", sort=True):
        figure.add_trace(
            go.Scatter(
                x=members["tss"],
                y=members["correct_rate"],
                mode="markers",
                name=str(model),
                text=members["task_id"],
                hovertemplate="%{text}<br>TSS %{x:.2f}, correct %{y:.0%}<extra>"
                + str(model)
                + "</extra>",
            )
        )
    if cells["tss"].nunique() > 1 and cells["correct_rate"].nunique() > 1:
        fit = stats.linregress(cells["tss"], cells["correct_rate"])
        x = np.array([cells["tss"].min(), cells["tss"].max()])
        figure.add_trace(
            go.Scatter(
                x=x,
                y=fit.intercept + fit.slope * x,
                mode="lines",
                name=f"linear fit (r = {fit.rvalue:.2f})",
                line={"color": "#444", "dash": "dash"},
            )
        )
    figure.add_vline(x=threshold, line={"color": "#999", "dash": "dot"})
    return figure.update_layout(
        **LAYOUT,
        title="Does consistency predict correctness? (one point per cell)",
        xaxis={"title": "TSS", "range": [-0.02, 1.02]},
        yaxis={"title": "correct rate", "range": [-0.02, 1.02], "tickformat": ".0%"},
    )


def model_category_heatmap(frame: pd.DataFrame, metric: str = "tss") -> go.Figure:
    """Mean of a metric (TSS by default) per model and task category."""
    cells = frame[frame[metric].notna() & frame["category"].notna()]
    if cells.empty:
        return _empty(f"{LABELS.get(metric, metric)} by model and category", "no data")
    grid = cells.pivot_table(index="model", columns="category", values=metric, aggfunc="mean")
    values = grid.to_numpy(dtype=float)
    text = np.where(np.isnan(values), "", np.char.mod("%.2f", np.nan_to_num(values)))
    figure = go.Figure(
        go.Heatmap(
            z=values,
            x=[str(column) for column in grid.columns],
            y=[str(index) for index in grid.index],
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": LABELS.get(metric, metric)},
            hovertemplate="%{y} / %{x}: %{z:.3f}<extra></extra>",
        )
    )
    return figure.update_layout(
        **LAYOUT, title=f"Mean {LABELS.get(metric, metric)} by model and task category"
    )


def all_figures(frame: pd.DataFrame, published: Published | None = None) -> dict[str, go.Figure]:
    """The report page's figures by name; `published` (from `load_published`) adds the
    paper's values where it published the same numbers. Cells with fewer than two valid runs
    are left out, as from every figure of the paper."""
    frame = statistics.analysed_cells(frame)
    return {
        "model_comparison": model_comparison(frame, published),
        "by_category": by_category(frame, published),
        "by_difficulty": by_difficulty(frame),
        "divergence_histogram": divergence_histogram(frame),
        "tss_vs_correctness": tss_vs_correctness(frame),
        "model_category_heatmap": model_category_heatmap(frame),
        "unique_sequences_per_model": unique_sequences_per_model(frame, published),
    }


# -- rendering -----------------------------------------------------------------------------


def figure_config(filename: str = "figure") -> dict[str, Any]:
    """plotly.js config: the mode bar's camera button saves a PNG named after the figure."""
    return {
        "displaylogo": False,
        "responsive": True,
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
    }


# plotly.js reads a little HTML in every text it draws (labels, names, hover text, titles):
# formatting tags, and <a href> links and <span style>. Names and labels come from imported
# files and models, so the one way a figure leaves the server keeps only the bare formatting
# tags our own figures use and turns every other "<", ">" and "&" into an entity, which
# plotly.js draws as the character itself (it splits text on tags before decoding entities).
_FORMATTING_TAG = re.compile(r"(</?(?:br|b|i|em|sup|sub|extra)\s*/?>)", re.IGNORECASE)


def plain_markup(text: str) -> str:
    """`text` with only bare formatting tags left as markup: no links, no styles."""
    return "".join(
        part if _FORMATTING_TAG.fullmatch(part) else html.escape(part, quote=False)
        for part in _FORMATTING_TAG.split(text)
    )


def _plain_everywhere(value: Any) -> Any:
    if isinstance(value, str):
        return plain_markup(value)
    if isinstance(value, dict):
        return {key: _plain_everywhere(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_everywhere(item) for item in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return [_plain_everywhere(item) for item in value.tolist()]
    return value


def safe_figure(fig: go.Figure) -> dict[str, Any]:
    """The figure as plotly.js gets it, every text made plain (`plain_markup`)."""
    return _plain_everywhere(fig.to_plotly_json())


def figure_html(fig: go.Figure, *, div_id: str | None = None, filename: str = "figure") -> str:
    """A standalone <div> for a page that loads plotly.js itself (served locally).

    No inline script, so the site's Content-Security-Policy holds: the figure and its config
    travel in a JSON island (`<script type="application/json">`, never executed) that
    static/js/figures.js draws into the div, on load and after every htmx swap."""
    div_id = div_id or f"fig-{uuid.uuid4().hex[:12]}"
    figure = json.dumps(safe_figure(fig), cls=PlotlyJSONEncoder)
    spec = f'{{"figure":{figure},"config":{json.dumps(figure_config(filename))}}}'
    # As django's json_script: no "</script>" or "<!--" can close the island early.
    spec = spec.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    height, width = (_css_size(fig.layout[side]) for side in ("height", "width"))
    return (
        f'<div style="height:{height}; width:{width};">'
        f'<div id="{div_id}" class="plotly-graph-div" style="height:100%; width:100%;"></div>'
        f'<script type="application/json" data-plotly-figure="{div_id}">{spec}</script></div>'
    )


def _css_size(value: Any) -> str:
    return f"{value}px" if isinstance(value, int | float) else "100%"


def figure_document(fig: go.Figure, *, filename: str = "figure") -> str:
    """A complete HTML file for download; plotly.js is embedded, so it needs no network."""
    return pio.to_html(
        safe_figure(fig),
        full_html=True,
        include_plotlyjs=True,
        config=figure_config(filename),
        validate=False,
    )


# -- helpers -------------------------------------------------------------------------------


def _metric_panels(
    table: pd.DataFrame,
    key: str,
    metrics: tuple[str, ...],
    published: Mapping[str, Mapping[str, Any]] | None,
    title: str,
    *,
    unit_range: bool = True,
) -> go.Figure:
    """One panel per metric: bars of the group means with CI whiskers, and the paper's
    values as markers where given."""
    table = table[table[key].notna()]
    if table.empty:
        return _empty(title, f"no cells with a {key}")
    figure = make_subplots(
        rows=1, cols=len(metrics), subplot_titles=[LABELS.get(m, m) for m in metrics]
    )
    groups = [str(value) for value in table[key]]
    for column, metric in enumerate(metrics, start=1):
        figure.add_trace(_bar_with_ci(table, groups, metric), row=1, col=column)
        if published:
            figure.add_trace(
                _published_markers(published, metric, first=column == 1), row=1, col=column
            )
    figure.update_layout(**LAYOUT, title=title, barmode="group")
    if unit_range:
        figure.update_yaxes(range=[0, 1.05])
    return figure


def _bar_with_ci(table: pd.DataFrame, groups: list[str], metric: str) -> go.Bar:
    mean = table[f"{metric}_mean"]
    above = (table[f"{metric}_ci_high"] - mean).fillna(0)
    below = (mean - table[f"{metric}_ci_low"]).fillna(0)
    return go.Bar(
        x=groups,
        y=mean,
        name=f"{LABELS.get(metric, metric)} (this study)",
        marker_color=COLOURS.get(metric),
        error_y={"type": "data", "symmetric": False, "array": above, "arrayminus": below},
        customdata=np.stack([table["n_cells"], table[f"{metric}_sd"]], axis=-1),
        hovertemplate="%{x}: %{y:.3f} (sd %{customdata[1]:.3f}, %{customdata[0]} cells)"
        "<extra></extra>",
    )


def _published_markers(
    published: Mapping[str, Mapping[str, Any]], metric: str, *, first: bool
) -> go.Scatter:
    names = [name for name, values in published.items() if values.get(metric) is not None]
    return go.Scatter(
        x=names,
        y=[published[name][metric] for name in names],
        mode="markers",
        name=PUBLISHED_NAME,
        legendgroup=PUBLISHED_NAME,
        showlegend=first,
        marker=PUBLISHED_MARKER,
        hovertemplate="%{x}: %{y:.2f} (published)<extra></extra>",
    )


def _empty(title: str, reason: str) -> go.Figure:
    figure = go.Figure()
    figure.add_annotation(text=reason, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return figure.update_layout(
        **LAYOUT, title=title, xaxis={"visible": False}, yaxis={"visible": False}
    )
