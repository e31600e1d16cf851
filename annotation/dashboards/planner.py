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
    items: tuple[int, ...] = (30, 60, 120, 240, 480)
    clinicians: tuple[int, ...] = (3, 5, 8, 12)
    overlaps: tuple[int, ...] = (2, 3)  # clinicians per item
    target: float = 0.2  # twice the envelope's margin: the widest interval inside ±0.1
    panel: int | None = None
    quantile: float = planning.DEFAULT_QUANTILE

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> PlanRequest:
        default = cls()
        return cls(
            pilot=parse_id(str(query.get("pilot") or "")),
            items=_numbers(query.get("items"), default.items, planning.MIN_INTERVAL_ITEMS, 5000),
            clinicians=_numbers(
                query.get("clinicians"), default.clinicians, planning.MIN_CLINICIANS, 50
            ),
            overlaps=_numbers(query.get("overlaps"), default.overlaps, 2, 20),
            target=_target(query.get("target"), default.target),
            panel=parse_id(str(query.get("panel") or "")),
            quantile=_quantile(query.get("quantile"), default.quantile),
        )

    def query(self) -> str:
        values = {
            "pilot": self.pilot or "",
            "items": ", ".join(map(str, self.items)),
            "clinicians": ", ".join(map(str, self.clinicians)),
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
            request.clinicians,
            request.overlaps,
            request.target,
            quantile=request.quantile,
            scale=ds.rubric.scale,
        )
    except planning.TooMuchWork as refusal:
        return {"refused": str(refusal), "summary": page_summary(ds)}
    except ValueError as refusal:  # no design fits: every overlap above every clinician count
        return {"refused": str(refusal), "summary": page_summary(ds)}
    order = {key: i for i, key in enumerate(ds.dimension_order({r.dimension for r in plan.rows}))}
    rows = [
        _shown_row(row) | {"dimension": ds.label(row.dimension), "key": row.dimension}
        for row in sorted(plan.rows, key=lambda r: (order[r.dimension], r.design.cost()))
    ]
    designs = _designs(rows, plan)
    reasons = _number_reasons(designs, rows)
    share = _share(plan.quantile)
    note = (
        f"Each width is the one {share} of simulated studies stay under, each power the share of "
        f"them in which the alt-test finds the jury can stand in; the pilot's own uncertainty "
        f"is folded in ({plan.pilot_draws} draws of its components × {plan.studies} studies "
        "each), and brackets give the planned figure's 10th–90th percentile over those draws. "
        "A dash says why a figure is missing."
    )
    by_dimension = {
        ds.label(d): (None if design is None else list(design.as_tuple()))
        for d, design in plan.recommended_by_dimension.items()
    }
    return {
        "pilot": ds.studies.get(request.pilot, {}).get("name", ""),
        "pilot_items": len({s.item for s in ds.scores}),
        "pilot_items_planned": min(plan.pilot_items.values(), default=0),
        "pilot_clinicians": min(plan.pilot_clinicians.values(), default=0),
        "warning": plan.warning,
        "jury": ds.jury.label if ds.jury else "",
        "target": request.target,
        "quantile": plan.quantile,
        "epsilon": plan.epsilon,
        "share": share,
        "recommended": _chosen(designs, plan.recommended),
        "recommended_envelope": _chosen(designs, plan.recommended_envelope),
        "recommended_alt_test": _chosen(designs, plan.recommended_alt_test),
        "stability": _stability(plan),
        "recommended_by_dimension": by_dimension,
        "advice": _advice(plan, ds),
        "assumptions": plan.assumptions,
        "reasons": reasons,
        "tables": {
            "designs": _designs_table(designs, request.target, share),
            "plan": table("Every dimension, every design", _PLAN_COLUMNS, rows, note),
        },
        # A chart with no figure to draw is no answer: the page says so instead.
        "figures": {"plan": figure(_plan_figure(designs, plan), "plan", "planned figures")}
        if _any_width(designs)
        else {},
        "summary": page_summary(ds),
    }


PLANNED = (*planning.FIGURES, planning.ALT_TEST)


def _number_reasons(designs: list[dict], rows: list[dict]) -> list[dict]:
    """Each reason a figure is missing, said once: numbered, with the dimensions it concerns;
    the rows say "reason 2" instead of repeating it."""
    found: dict[str, set[str]] = {}
    for row in rows:
        for f in PLANNED:
            if row[f"{f}_reason"]:
                found.setdefault(row[f"{f}_reason"], set()).add(row["dimension"])
    number = {reason: i for i, reason in enumerate(found, start=1)}

    def refer(texts) -> str:
        ids = sorted({number[t] for t in texts if t in number})
        return f"reason{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))}" if ids else ""

    for design in designs:
        design["missing"] = refer(design.pop("reasons"))
        for f in PLANNED:
            _refer_in(design[f], refer(design.get(f"{f}_missing", [])))
    for row in rows:
        row["note"] = refer(row[f"{f}_reason"] for f in PLANNED)
        for f in PLANNED:
            _refer_in(row[f], refer([row[f"{f}_reason"]]))
    order = [row["dimension"] for row in rows]
    return [
        {"number": i, "text": reason, "dimensions": sorted(found[reason], key=order.index)}
        for reason, i in number.items()
    ]


def _refer_in(estimate: dict, reference: str) -> None:
    """A missing figure's cell names its reason by number (said in full once, below)."""
    if estimate["value"] is None and reference:
        estimate["reason"] = reference


def _any_width(designs: list[dict]) -> bool:
    return any(d[f]["value"] is not None for d in designs for f in PLANNED)


def _share(quantile: float) -> str:
    return f"{quantile:.0%}"


def _estimate(planned: planning.Planned) -> dict:
    """A planned figure as the tables' estimate cell: the figure, its range over the pilot's
    draws, and when there is no figure, the reason (shown in place of the dash's silence)."""
    return {
        "value": planned.value,
        "ci": list(planned.range) if planned.range else None,
        "reason": planned.reason,
    }


def _shown_row(row: planning.PlanRow) -> dict:
    shown: dict[str, Any] = {
        "items": row.items,
        "clinicians": row.clinicians,
        "per_item": row.per_item,
        "ratings": row.design.ratings,
        "items_per_clinician": round(row.design.items_per_clinician),
        "envelope_reaches": row.envelope_reaches,
        "alt_test_reaches": row.alt_test_reaches,
        "reaches_target": row.reaches_target,
        "envelope_share": row.envelope_share,
        "alt_test_share": row.alt_test_share,
    }
    for f in PLANNED:
        planned = row.figures[f]
        shown[f] = _estimate(planned)
        shown[f"{f}_reason"] = planned.reason
        shown[f"{f}_unlimited"] = planned.unlimited
    return shown


_PLAN_COLUMNS = [
    ("dimension", "Dimension", "text"),
    ("items", "Items", "int"),
    ("clinicians", "Clinicians", "int"),
    ("per_item", "Clinicians per item", "int"),
    ("ratings", "Scores per dimension", "int"),
    ("items_per_clinician", "Items per clinician", "int"),
    ("adjacent_difference", "Adjacency difference CI width", "est"),
    ("adjacent_difference_unlimited", "… with unlimited items", "num"),
    ("kappa_difference", "Kappa difference CI width", "est"),
    ("kappa_difference_unlimited", "… with unlimited items", "num"),
    ("alt_test", "Alt-test power", "est"),
    ("envelope_reaches", "Envelope reaches", "bool"),
    ("alt_test_reaches", "Alt-test reaches", "bool"),
    ("envelope_share", "Pilot draws reaching (envelope)", "pct"),
    ("alt_test_share", "Pilot draws reaching (alt-test)", "pct"),
    ("note", "Why a figure is missing (below)", "text"),
]


def _designs(rows: list[dict], plan: planning.PlanResult) -> list[dict]:
    """One row per design: the widest dimension's planned widths and the lowest power (or why
    there is none), how many dimensions reach each target, and whether it is recommended."""
    found = []
    chosen = {
        "recommended": plan.recommended,
        "recommended_envelope": plan.recommended_envelope,
        "recommended_alt_test": plan.recommended_alt_test,
    }
    planned = set(plan.planned_dimensions)
    every = {planning.Design(r["items"], r["clinicians"], r["per_item"]) for r in rows}
    for design in sorted(every, key=planning.Design.cost):
        mine = [
            r
            for r in rows
            if (r["items"], r["clinicians"], r["per_item"]) == design.as_tuple()
            and r["key"] in planned
        ] or [r for r in rows if (r["items"], r["clinicians"], r["per_item"]) == design.as_tuple()]
        shown = {
            "items": design.items,
            "clinicians": design.clinicians,
            "per_item": design.per_item,
            "ratings": design.ratings,
            "items_per_clinician": round(design.items_per_clinician),
            "cost": design.cost(),
        }
        for f in PLANNED:
            shown |= _worst(mine, f)
        shown["reasons"] = list(
            dict.fromkeys(r for f in PLANNED for r in shown.get(f"{f}_missing", []))
        )
        shown |= {
            "envelope_reaching": f"{sum(r['envelope_reaches'] for r in mine)} of {len(mine)}",
            "alt_test_reaching": f"{sum(r['alt_test_reaches'] for r in mine)} of {len(mine)}",
            **{key: design == value for key, value in chosen.items()},
        }
        found.append(shown)
    return sorted(found, key=lambda d: d["cost"])


def _worst(rows: list[dict], f: str) -> dict:
    """The widest dimension's width (the lowest power) of figure f; a dash with every
    dimension's reason when any dimension has none (the worst is then unknown)."""
    missing = [r for r in rows if r[f]["value"] is None]
    if missing:
        reasons = {r[f"{f}_reason"] for r in missing}
        if len(reasons) == 1 and len(missing) == len(rows):
            reason = reasons.pop()
        else:
            reason = "; ".join(f"{r['dimension']}: {r[f'{f}_reason']}" for r in missing)
        return {
            f: {"value": None, "ci": None, "reason": reason},
            f"{f}_dimension": "",
            f"{f}_missing": [r[f"{f}_reason"] for r in missing],
        }
    pick = min if f == planning.ALT_TEST else max
    worst = pick(rows, key=lambda r: r[f]["value"])
    return {f: worst[f], f"{f}_dimension": worst["dimension"]}


def _designs_table(designs: list[dict], target: float, share: str) -> dict:
    columns = [
        ("items", "Items", "int"),
        ("clinicians", "Clinicians", "int"),
        ("per_item", "Clinicians per item", "int"),
        ("ratings", "Scores per dimension", "int"),
        ("items_per_clinician", "Items per clinician", "int"),
        ("adjacent_difference", f"Widest adjacency-difference CI width ({share})", "est"),
        ("kappa_difference", f"Widest kappa-difference CI width ({share})", "est"),
        ("alt_test", "Lowest alt-test power", "est"),
        ("envelope_reaching", f"Dimensions with both widths ≤ {target:g}", "text"),
        ("alt_test_reaching", f"Dimensions with power ≥ {share}", "text"),
        ("recommended", "Recommended (both verdicts)", "bool"),
        ("missing", "Why a figure is missing (below)", "text"),
    ]
    note = (
        "Designs from the fewest clinician scores up (then the fewest clinicians); the "
        "recommended one (highlighted) is the first whose planned widths reach the target and "
        f"whose alt-test power reaches {share} on every dimension with a jury. Brackets: the "
        "planned figure's 10th–90th percentile over the pilot's draws."
    )
    return table(
        "Designs", columns, designs, note, highlight=lambda row: bool(row.get("recommended"))
    )


def _chosen(designs: list[dict], design: planning.Design | None) -> dict | None:
    """A recommended design and the figures it plans, for the sentence above the tables."""
    if design is None:
        return None
    row = next(d for d in designs if d["cost"] == design.cost())
    return {
        "items": design.items,
        "clinicians": design.clinicians,
        "per_item": design.per_item,
        "ratings": design.ratings,
        "items_per_clinician": round(design.items_per_clinician),
        **{f: row[f] for f in PLANNED},
    }


def _advice(plan: planning.PlanResult, ds) -> list[dict]:
    """How many clinicians each verdict needs at least, and with how many more items would
    not help: per verdict and clinicians per item, the dimension needing most."""
    grouped: dict[tuple[str, int], list[planning.Advice]] = {}
    for advice in plan.advice:
        grouped.setdefault((advice.verdict, advice.per_item), []).append(advice)
    out = []
    for (verdict, per_item), found in grouped.items():
        hardest = max(found, key=lambda a: (a.clinicians_needed is None, a.clinicians_needed or 0))
        out.append(
            {
                "verdict": verdict,
                "per_item": per_item,
                "clinicians_needed": hardest.clinicians_needed,
                "dimension": ds.label(hardest.dimension),
                "text": hardest.text,
            }
        )
    return sorted(out, key=lambda a: (a["per_item"], PLANNED.index(a["verdict"])))


def _stability(plan: planning.PlanResult) -> dict:
    """How often draws of the pilot recommend the same design, and what else."""
    stability = plan.stability
    recommended = plan.recommended.as_tuple() if plan.recommended else None
    others = [
        {"design": "none" if d is None else "×".join(map(str, d)), "share": share}
        for d, share in stability.designs
        if d != recommended
    ]
    return {"draws": stability.draws, "same": stability.same, "others": others[:4]}


# --- figures -------------------------------------------------------------------------------------


def _plan_figure(designs: list[dict], plan: planning.PlanResult) -> go.Figure:
    """The widest dimension's planned widths and the lowest power per design, with their range
    over the pilot's draws: one line per clinicians × clinicians per item; the targets dashed;
    the recommendation starred. A design without a figure is a gap, never a 0."""
    share = _share(plan.quantile)
    title = (
        f"Planned at {share} of studies (dashed: width target {plan.target_width:g}, power {share})"
    )
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[
            "Jury − clinician adjacency: CI width",
            "Jury − clinician kappa: CI width",
            "Alt-test: power to find it stands in",
        ],
    )
    lines = sorted({(d["clinicians"], d["per_item"]) for d in designs})
    for col, key in enumerate(PLANNED, start=1):
        for i, (clinicians, per_item) in enumerate(lines):
            mine = sorted(
                (d for d in designs if (d["clinicians"], d["per_item"]) == (clinicians, per_item)),
                key=lambda d: d["items"],
            )
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
                    name=f"{clinicians} clinicians, {per_item} per item",
                    legendgroup=f"{clinicians}-{per_item}",
                    showlegend=col == 1,
                ),
                row=1,
                col=col,
            )
        goal = plan.quantile if key == planning.ALT_TEST else plan.target_width
        fig.add_hline(y=goal, line={"dash": "dash", "color": "#cf222e"}, row=1, col=col)
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
    fig.update_xaxes(title_text="items (conversations)", tickvals=ticks, type="log")
    fig.update_yaxes(rangemode="tozero")
    return apply_layout(fig, title)
