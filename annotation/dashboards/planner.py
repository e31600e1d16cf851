"""The study planner: from a pilot study's scores, how wide the agreement intervals would be for
other numbers of items and clinicians per item, as a table of designs and a figure; cached by
stamp like the live pages but computed only on request.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlencode

import plotly.graph_objects as go
from django.db.models import Count, Q
from plotly.subplots import make_subplots

from annotation import planning
from annotation.dashboards.cache import DATA_VERSION, cached, stamp
from annotation.dashboards.common import page_summary
from annotation.dashboards.figures import PALETTE, apply_layout, figure
from annotation.dashboards.filters import Filters, parse_id
from annotation.dashboards.loading import load, study_kind
from annotation.dashboards.tables import table
from annotation.models import Assignment, Item, Study

# --- the study planner ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanRequest:
    pilot: int | None = None
    items: tuple[int, ...] = (20, 40, 80, 160)
    overlaps: tuple[int, ...] = (2, 3, 4)
    target: float = 0.2
    panel: int | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> PlanRequest:
        default = cls()
        return cls(
            pilot=parse_id(str(query.get("pilot") or "")),
            items=_numbers(query.get("items"), default.items, 2, 5000),
            overlaps=_numbers(query.get("overlaps"), default.overlaps, 2, 20),
            target=_target(query.get("target"), default.target),
            panel=parse_id(str(query.get("panel") or "")),
        )

    def query(self) -> str:
        values = {
            "pilot": self.pilot or "",
            "items": ", ".join(map(str, self.items)),
            "overlaps": ", ".join(map(str, self.overlaps)),
            "target": f"{self.target:g}",
            "panel": self.panel or "",
        }
        return urlencode({k: v for k, v in values.items() if v != ""})

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:24]


def _numbers(text: Any, default: tuple[int, ...], low: int, high: int) -> tuple[int, ...]:
    parts = str(text or "").replace(";", ",").replace(" ", ",").split(",")
    numbers = [p.strip() for p in parts if p.strip().isdecimal() and len(p.strip()) <= 9]
    found = sorted({int(p) for p in numbers if low <= int(p) <= high})
    return tuple(found[:8]) or default


def _target(text: Any, default: float) -> float:
    try:
        value = float(str(text))
    except ValueError:
        return default
    return value if math.isfinite(value) and 0.01 <= value <= 2 else default


def pilots() -> list[dict]:
    """Studies and rounds that can serve as a pilot: some item scored by 2 or more clinicians.
    Finished (closed) calibration rounds first, as DESIGN §7 suggests."""
    live = Q(assignments__submissions__is_current=True) & ~Q(
        assignments__status=Assignment.Status.WITHDRAWN
    )
    shared = (
        Item.objects.annotate(n=Count("assignments__clinician", filter=live, distinct=True))
        .filter(n__gte=2)
        .values("study_id")
    )
    studies = Study.objects.filter(pk__in=shared).values("pk", "name", "kind", "status")
    found = [s | {"label": _pilot_label(s)} for s in studies]
    return sorted(
        found,
        key=lambda s: (s["kind"] != Study.Kind.CALIBRATION, s["status"] != "closed", -s["pk"]),
    )


def _pilot_label(study: Mapping[str, Any]) -> str:
    state = "finished" if study["status"] == Study.Status.CLOSED else "open"
    return f"{study['name']} ({study_kind(study['kind'])}, {state})"


def plan_data(request: PlanRequest, current: str | None = None) -> dict:
    """`planning.plan_study` on the pilot's scores, as plain data; cached like the pages."""
    base = f"dashboards:v{DATA_VERSION}:plan:{request.digest()}"
    return cached(base, current or stamp(), lambda: _plan(request))


def _plan(request: PlanRequest) -> dict:
    ds = load(Filters(study=request.pilot, panel=request.panel))
    plan = planning.plan_study(ds.ratings(), request.items, request.overlaps, request.target)
    order = {key: i for i, key in enumerate(ds.dimension_order({r.dimension for r in plan.rows}))}
    rows = [
        row | {"dimension": ds.label(row["dimension"]), "key": row["dimension"]}
        for row in sorted(plan.as_rows(), key=lambda r: (order[r["dimension"]], r["ratings"]))
    ]
    designs = _designs(rows, plan)
    note = (
        f"{plan.n_sim} simulated studies per design, each drawing its items from the pilot "
        f"and {plan.n_boot} bootstrap resamples per interval; a width is the median over the "
        "simulated studies, and 90% of them stay under the second figure."
    )
    by_dimension = {
        ds.label(d): (None if design is None else list(design))
        for d, design in plan.recommended_by_dimension.items()
    }
    return {
        "pilot": ds.studies.get(request.pilot, {}).get("name", ""),
        "pilot_items": len({s.trace for s in ds.scores}),
        "jury": ds.jury.label if ds.jury else "",
        "target": request.target,
        "recommended": list(plan.recommended) if plan.recommended else None,
        "recommended_by_dimension": by_dimension,
        "tables": {
            "designs": _designs_table(designs, request.target),
            "plan": table("Every dimension, every design", _PLAN_COLUMNS, rows, note),
        },
        "figures": {"plan": figure(_plan_figure(designs, plan), "plan", "CI width by design")},
        "summary": page_summary(ds),
    }


_PLAN_COLUMNS = [
    ("dimension", "Dimension", "text"),
    ("items", "Items", "int"),
    ("overlap", "Clinicians per item", "int"),
    ("ratings", "Scores per dimension", "int"),
    ("alpha_width", "α CI width (median)", "num"),
    ("alpha_width_p90", "α CI width (90%)", "num"),
    ("difference_width", "Jury − clinician CI width (median)", "num"),
    ("difference_width_p90", "Jury − clinician CI width (90%)", "num"),
    ("reaches_target", "Reaches target", "bool"),
    ("note", "Note", "text"),
]


def _designs(rows: list[dict], plan: planning.PlanResult) -> list[dict]:
    """One row per design: the widest dimension's widths, how many dimensions reach the
    target, and whether it is the recommended one."""
    found = []
    for items, overlap in sorted({(r["items"], r["overlap"]) for r in rows}):
        mine = [r for r in rows if (r["items"], r["overlap"]) == (items, overlap)]
        widest_alpha = max(mine, key=lambda r: _width_key(r["alpha_width"]))
        widest_difference = max(mine, key=lambda r: _width_key(r["difference_width"]))
        found.append(
            {
                "items": items,
                "overlap": overlap,
                "ratings": items * overlap,
                "alpha_width": widest_alpha["alpha_width"],
                "alpha_dimension": widest_alpha["dimension"],
                "difference_width": widest_difference["difference_width"],
                "difference_dimension": widest_difference["dimension"]
                if widest_difference["difference_width"] is not None
                else None,
                "reaching": f"{sum(r['reaches_target'] for r in mine)} of {len(mine)}",
                "recommended": (items, overlap) == plan.recommended,
            }
        )
    return sorted(found, key=lambda d: (d["ratings"], d["items"]))


def _width_key(width: float | None) -> float:
    return -1.0 if width is None else width


def _designs_table(designs: list[dict], target: float) -> dict:
    columns = [
        ("items", "Items", "int"),
        ("overlap", "Clinicians per item", "int"),
        ("ratings", "Scores per dimension", "int"),
        ("alpha_width", "Widest α CI width", "num"),
        ("alpha_dimension", "on", "text"),
        ("difference_width", "Widest jury − clinician CI width", "num"),
        ("difference_dimension", "on", "text"),
        ("reaching", f"Dimensions reaching ≤ {target:g}", "text"),
        ("recommended", "Recommended", "bool"),
    ]
    note = (
        "Designs from the fewest clinician scores up; the recommended one (highlighted) is the "
        "first whose median widths reach the target on every dimension."
    )
    return table(
        "Designs", columns, designs, note, highlight=lambda row: bool(row.get("recommended"))
    )


# --- figures -------------------------------------------------------------------------------------


def _plan_figure(designs: list[dict], plan: planning.PlanResult) -> go.Figure:
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
    return apply_layout(fig, title)
