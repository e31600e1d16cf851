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

from annotation.dashboards.cache import DATA_VERSION, cached, stamp
from annotation.dashboards.common import page_summary
from annotation.dashboards.figures import PALETTE, apply_layout, figure
from annotation.dashboards.filters import Filters, parse_id
from annotation.dashboards.loading import load, study_kind
from annotation.dashboards.tables import table
from annotation.models import Assignment, Item, Study
from annotation.pure import planning

# --- the study planner ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanRequest:
    pilot: int | None = None
    items: tuple[int, ...] = (20, 40, 80, 160)
    overlaps: tuple[int, ...] = (2, 3, 4)
    target: float = 0.2
    panel: int | None = None
    quantile: float = planning.DEFAULT_QUANTILE

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> PlanRequest:
        default = cls()
        return cls(
            pilot=parse_id(str(query.get("pilot") or "")),
            items=_numbers(query.get("items"), default.items, planning.MIN_INTERVAL_ITEMS, 5000),
            overlaps=_numbers(query.get("overlaps"), default.overlaps, 2, 20),
            target=_target(query.get("target"), default.target),
            panel=parse_id(str(query.get("panel") or "")),
            quantile=_quantile(query.get("quantile"), default.quantile),
        )

    def query(self) -> str:
        values = {
            "pilot": self.pilot or "",
            "items": ", ".join(map(str, self.items)),
            "overlaps": ", ".join(map(str, self.overlaps)),
            "target": f"{self.target:g}",
            "panel": self.panel or "",
            "quantile": f"{self.quantile:g}",
        }
        return urlencode({k: v for k, v in values.items() if v != ""})

    @property
    def quantile_choices(self) -> list[tuple[float, str]]:
        return QUANTILE_CHOICES

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


def _quantile(text: Any, default: float) -> float:
    """One of the quantiles offered (0.5, 0.8, 0.9), read as a share or a percentage."""
    try:
        value = float(str(text))
    except ValueError:
        return default
    value = value / 100 if value > 1 else value
    return next((q for q in planning.QUANTILES if math.isclose(q, value)), default)


QUANTILE_CHOICES = [(q, f"{q:.0%} ({q * 100:.0f}th percentile)") for q in planning.QUANTILES]


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
    try:
        plan = planning.plan_study(
            ds.ratings(),
            request.items,
            request.overlaps,
            request.target,
            quantile=request.quantile,
        )
    except planning.TooMuchWork as refusal:
        return {"refused": str(refusal), "summary": page_summary(ds)}
    order = {key: i for i, key in enumerate(ds.dimension_order({r.dimension for r in plan.rows}))}
    rows = [
        _shown_row(row) | {"dimension": ds.label(row["dimension"]), "key": row["dimension"]}
        for row in sorted(plan.as_rows(), key=lambda r: (order[r["dimension"]], r["ratings"]))
    ]
    designs = _designs(rows, plan)
    reasons = _number_reasons(designs, rows)
    share = _share(plan.quantile)
    note = (
        f"{plan.n_sim} simulated studies per design, each drawing its items from the pilot, "
        f"{plan.n_boot} bootstrap resamples (percentile, 95%) per interval. A width is the one "
        f"{share} of simulated studies stay under (what is planned on), with the pilot's own "
        f"uncertainty folded in; brackets: its 10th–90th percentile over "
        f"{plan.stability.resamples} resamples of the pilot's items. A dash says why it is missing."
    )
    by_dimension = {
        ds.label(d): (None if design is None else list(design))
        for d, design in plan.recommended_by_dimension.items()
    }
    return {
        "pilot": ds.studies.get(request.pilot, {}).get("name", ""),
        "pilot_items": len({s.item for s in ds.scores}),
        "pilot_items_planned": min(plan.pilot_items.values(), default=0),
        "warning": plan.warning,
        "jury": ds.jury.label if ds.jury else "",
        "target": request.target,
        "quantile": plan.quantile,
        "share": share,
        "recommended": list(plan.recommended) if plan.recommended else None,
        "recommended_design": _recommended(designs),
        "stability": _stability(plan),
        "recommended_by_dimension": by_dimension,
        "reasons": reasons,
        "tables": {
            "designs": _designs_table(designs, request.target, share),
            "plan": table("Every dimension, every design", _PLAN_COLUMNS, rows, note),
        },
        # A chart with no width to draw is no answer: the page says so instead.
        "figures": {
            "plan": figure(
                _plan_figure(designs, plan), "plan", f"CI width {share} of studies reach"
            )
        }
        if _any_width(designs)
        else {},
        "summary": page_summary(ds),
    }


def _number_reasons(designs: list[dict], rows: list[dict]) -> list[dict]:
    """Each reason a width is missing, said once: numbered, with the dimensions it concerns;
    the rows say "reason 2" instead of repeating it (a dozen designs repeated fifteen long
    sentences each)."""
    found: dict[str, set[str]] = {}
    for row in rows:
        for f in planning.FIGURES:
            if row[f"{f}_reason"]:
                found.setdefault(row[f"{f}_reason"], set()).add(row["dimension"])
    number = {reason: i for i, reason in enumerate(found, start=1)}

    def refer(texts) -> str:
        ids = sorted({number[t] for t in texts if t in number})
        return f"reason{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}" if ids else ""

    for design in designs:
        design["missing"] = refer(design.pop("reasons"))
        for f in planning.FIGURES:
            _refer_in(design[f"{f}_width"], refer(design.get(f"{f}_missing", [])))
    for row in rows:
        row["note"] = refer(row[f"{f}_reason"] for f in planning.FIGURES)
        for f in planning.FIGURES:
            for key in (f"{f}_width", f"{f}_width_median"):
                _refer_in(row[key], refer([row[f"{f}_reason"]]))
    order = [row["dimension"] for row in rows]
    return [
        {"number": i, "text": reason, "dimensions": sorted(found[reason], key=order.index)}
        for reason, i in number.items()
    ]


def _refer_in(estimate: dict, reference: str) -> None:
    """A missing width's cell names its reason by number (said in full once, below)."""
    if estimate["value"] is None and reference:
        estimate["reason"] = reference


def _any_width(designs: list[dict]) -> bool:
    return any(d[f"{f}_width"]["value"] is not None for d in designs for f in planning.FIGURES)


def _share(quantile: float) -> str:
    return f"{quantile:.0%}"


def _estimate(width: float | None, spread: Any, reason: str | None) -> dict:
    """A width as the tables' estimate cell: the figure, its range over pilot resamples, and
    when there is no figure, the reason (shown in place of the dash's silence)."""
    return {"value": width, "ci": list(spread) if spread else None, "reason": reason}


def _shown_row(row: dict) -> dict:
    shown = row | {"note": row["note"] or ""}  # no reason needed: no dash either
    for f in planning.FIGURES:
        reason = row[f"{f}_reason"]
        shown[f"{f}_width"] = _estimate(row[f"{f}_width"], row[f"{f}_width_range"], reason)
        shown[f"{f}_width_median"] = _estimate(row[f"{f}_width_median"], None, reason)
    return shown


_PLAN_COLUMNS = [
    ("dimension", "Dimension", "text"),
    ("items", "Items", "int"),
    ("overlap", "Clinicians per item", "int"),
    ("ratings", "Scores per dimension", "int"),
    ("alpha_width", "α CI width (planned)", "est"),
    ("alpha_width_median", "α CI width (median)", "est"),
    ("difference_width", "Jury − clinician CI width (planned)", "est"),
    ("difference_width_median", "Jury − clinician CI width (median)", "est"),
    ("reaches_target", "Reaches target", "bool"),
    ("reach_share", "Pilot resamples reaching", "pct"),
    ("note", "Why a width is missing (below)", "text"),
]


def _designs(rows: list[dict], plan: planning.PlanResult) -> list[dict]:
    """One row per design: the widest dimension's planned widths (or why there is none), how
    many dimensions reach the target, and whether it is the recommended one."""
    found = []
    for items, overlap in sorted({(r["items"], r["overlap"]) for r in rows}):
        mine = [r for r in rows if (r["items"], r["overlap"]) == (items, overlap)]
        design = {"items": items, "overlap": overlap, "ratings": items * overlap}
        for f in planning.FIGURES:
            design |= _widest(mine, f)
        design["reasons"] = list(
            dict.fromkeys(r for f in planning.FIGURES for r in design.get(f"{f}_missing", []))
        )
        shares = [r["reach_share"] for r in mine]
        design |= {
            "reaching": f"{sum(r['reaches_target'] for r in mine)} of {len(mine)}",
            "reach_share": None if None in shares else min(shares),
            "recommended": (items, overlap) == plan.recommended,
        }
        found.append(design)
    return sorted(found, key=lambda d: (d["ratings"], d["items"]))


def _widest(rows: list[dict], f: str) -> dict:
    """The widest dimension's width of figure f; a dash with every dimension's reason when
    any dimension has none (the widest is then unknown)."""
    missing = [r for r in rows if r[f"{f}_width"]["value"] is None]
    # A dimension without jury scores plans on alpha alone: it leaves the others' widest.
    unknown = [r for r in missing if r[f"{f}_reason"] not in _NOT_PLANNED]
    if unknown or len(missing) == len(rows):
        reasons = {r[f"{f}_reason"] for r in missing}
        if len(reasons) == 1 and len(missing) == len(rows):
            reason = reasons.pop()
        else:
            reason = "; ".join(f"{r['dimension']}: {r[f'{f}_reason']}" for r in missing)
        return {
            f"{f}_width": _estimate(None, None, reason),
            f"{f}_dimension": "",
            f"{f}_missing": [r[f"{f}_reason"] for r in missing],
        }
    rows = [r for r in rows if r not in missing]
    widest = max(rows, key=lambda r: r[f"{f}_width"]["value"])
    return {f"{f}_width": widest[f"{f}_width"], f"{f}_dimension": widest["dimension"]}


_NOT_PLANNED = (planning.NO_JURY, planning.NO_JURY_HERE)


def _designs_table(designs: list[dict], target: float, share: str) -> dict:
    columns = [
        ("items", "Items", "int"),
        ("overlap", "Clinicians per item", "int"),
        ("ratings", "Scores per dimension", "int"),
        ("alpha_width", f"Widest α CI width ({share} of studies)", "est"),
        ("alpha_dimension", "on", "text"),
        ("difference_width", f"Widest jury − clinician CI width ({share})", "est"),
        ("difference_dimension", "on", "text"),
        ("reaching", f"Dimensions reaching ≤ {target:g}", "text"),
        ("reach_share", "Pilot resamples reaching (worst dimension)", "pct"),
        ("recommended", "Recommended", "bool"),
        ("missing", "Why a width is missing (below)", "text"),
    ]
    note = (
        "Designs from the fewest clinician scores up; the recommended one (highlighted) is the "
        f"first whose widths, at the {share} planned on, reach the target on every dimension. "
        "Brackets: the planned width's 10th–90th percentile over resamples of the pilot."
    )
    return table(
        "Designs", columns, designs, note, highlight=lambda row: bool(row.get("recommended"))
    )


def _recommended(designs: list[dict]) -> dict | None:
    chosen = next((d for d in designs if d["recommended"]), None)
    if chosen is None:
        return None
    return {f: chosen[f"{f}_width"] for f in planning.FIGURES} | {
        "reach_share": chosen["reach_share"]
    }


def _stability(plan: planning.PlanResult) -> dict:
    """How often resamples of the pilot recommend the same design, and what else."""
    stability = plan.stability
    others = [
        {"design": "none" if d is None else f"{d[0]}×{d[1]}", "share": share}
        for d, share in stability.designs
        if d != plan.recommended
    ]
    return {"resamples": stability.resamples, "same": stability.same, "others": others[:4]}


# --- figures -------------------------------------------------------------------------------------


def _plan_figure(designs: list[dict], plan: planning.PlanResult) -> go.Figure:
    """The widest dimension's planned width per design, with its range over pilot resamples:
    one line per overlap, for alpha and for the jury-minus-clinician difference; the target
    dashed; the recommendation starred. A design without a width is a gap, never a 0."""
    share = _share(plan.quantile)
    title = (
        f"Widest dimension's CI width, {share} of studies (dashed: target {plan.target_width:g})"
    )
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["Krippendorff's α (ordinal)", "Jury − clinician adjacent agreement"],
    )
    for col, key in enumerate(("alpha_width", "difference_width"), start=1):
        for i, overlap in enumerate(sorted({d["overlap"] for d in designs})):
            mine = sorted((d for d in designs if d["overlap"] == overlap), key=lambda d: d["items"])
            values = [d[key]["value"] for d in mine]
            spreads = [d[key]["ci"] or [v, v] for d, v in zip(mine, values, strict=True)]
            fig.add_trace(
                go.Scatter(
                    x=[d["items"] for d in mine],
                    y=values,
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [
                            None if v is None else hi - v
                            for v, (_, hi) in zip(values, spreads, strict=True)
                        ],
                        "arrayminus": [
                            None if v is None else v - lo
                            for v, (lo, _) in zip(values, spreads, strict=True)
                        ],
                        "thickness": 1,
                    },
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
        chosen = [d for d in designs if d["recommended"] and d[key]["value"] is not None]
        fig.add_trace(
            go.Scatter(
                x=[d["items"] for d in chosen],
                y=[d[key]["value"] for d in chosen],
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
