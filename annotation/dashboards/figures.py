"""What every page's figures share: each page module builds its own plotly figures from plain
data and keeps them as a rendered fragment plus its JSON (`figure`), so the cache holds no live
plotly objects and a figure can be downloaded as a standalone HTML file (`figure_file`). The
shared layout, palette, subplot grid and empty figure live here so the pages look alike.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import sample_colorscale

from patientagentbench.analysis.figures import LAYOUT, figure_document, figure_html

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


def apply_layout(fig: go.Figure, title: str, **extra: Any) -> go.Figure:
    """The dashboards' shared plotly layout, with a title and any overrides."""
    layout = dict(LAYOUT) | {"title": title} | extra
    return fig.update_layout(**layout)


def grid(n: int, columns: int = 3) -> tuple[int, int]:
    """Rows and columns for `n` subplots, at most `columns` wide."""
    cols = max(1, min(columns, n))
    return max(1, math.ceil(n / cols)), cols


def empty_figure(title: str, reason: str) -> go.Figure:
    """A figure saying why there is nothing to draw."""
    fig = go.Figure()
    fig.add_annotation(text=reason, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return apply_layout(fig, title, xaxis={"visible": False}, yaxis={"visible": False}, height=260)


# Red (lowest) to green (highest), the five the default 1–5 scale has always been drawn in.
_FIVE_SCORE_COLOURS = ("#cf222e", "#e16f24", "#bf8700", "#2da44e", "#116329")


def score_colours(points: int) -> tuple[str, ...]:
    """One colour per point of a scale, lowest red to highest green."""
    if points == len(_FIVE_SCORE_COLOURS):
        return _FIVE_SCORE_COLOURS
    return tuple(sample_colorscale("RdYlGn", [i / (points - 1) for i in range(points)]))
