"""The jury-corrected page (DESIGN §7, prediction-powered inference): each model's mean score
and pass rate per dimension, three ways side by side (jury only, clinicians only, and the jury
corrected by the clinicians), for one study whose conversations were drawn at random from a
population the jury scored in full. The population and every member's inclusion probability
come from what the sampler recorded on the study (`Study.sampling`); the estimators are the
pure `annotation.pure.corrected`. Any other study is refused, with the reason. Cached by the stamp
like the live pages (a new score or verdict recomputes it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.dashboards.cache import DATA_VERSION, cached, stamp
from annotation.dashboards.common import item_scores
from annotation.dashboards.figures import PALETTE, apply_layout, empty_figure, figure, grid
from annotation.dashboards.filters import Filters
from annotation.dashboards.loading import Dataset, facets, jury_scores, load
from annotation.dashboards.tables import table
from annotation.models import Item, Study
from annotation.pure import corrected
from patientagentbench.models import Trace

ALL_MODELS = "all models"
METHOD_LABELS = {
    corrected.JURY_ONLY: "Jury only (its own scale, not corrected)",
    corrected.CLINICIANS_ONLY: "Clinicians only",
    corrected.PPI: "Jury corrected by clinicians (PPI++)",
}
FILTER_NAMES = ("study", "panel", "judge")


def corrected_data(filters: Filters, current: str | None = None) -> dict:
    """The page's data as plain values, recomputed only when the stamp has moved."""
    mine = Filters(study=filters.study, panel=filters.panel, judge=filters.judge)
    base = f"dashboards:v{DATA_VERSION}:corrected:{mine.digest()}"
    return cached(base, current or stamp(), lambda: corrected_page(mine))


def corrected_facets(filters: Filters) -> list[dict]:
    """The filter bar: the study (random designs named as such), the panel, one judge."""
    found = [f for f in facets(filters, "corrected") if f["name"] in FILTER_NAMES]
    designs = dict(Study.objects.values_list("pk", "sampling"))
    for field in found:
        if field["name"] == "study":
            for option in field["options"]:
                design = (designs.get(int(option["value"])) or {}).get("design", "")
                if design in corrected.RANDOM_DESIGNS:
                    option["label"] += " · random sample"
    return found


def corrected_page(filters: Filters) -> dict:
    base = {"tables": {}, "figures": {}, "refusal": "", "notes": [], "summary": {}}
    if not filters.study:
        return base | {"refusal": "Choose a study whose conversations were sampled at random."}
    study = Study.objects.filter(pk=filters.study).first()
    if study is None:
        return base | {"refusal": "No such study."}
    refusal = corrected.design_refusal(*_design(study))
    if refusal:
        return base | {"refusal": refusal, "study": study.name}
    ds = load(filters)
    population = [(int(t), float(p), str(s)) for t, p, s in study.sampling["population"]]
    if not ds.scores:
        return base | {
            "study": study.name,
            "refusal": "No clinician has scored this study's conversations yet: the "
            "estimates appear with the first scores (at least "
            f"{corrected.MIN_LABELLED} per model and dimension for a corrected one).",
        }
    if ds.panel is None:
        return base | {
            "study": study.name,
            "refusal": "Refused: no jury panel has scored these conversations yet, so there is "
            "nothing to correct. Score their runs with a panel (Jury → launch).",
        }
    jury = jury_scores(ds.panel, [t for t, _, _ in population], ds.judge)
    rows, notes, summary = _estimates(ds, study, population, jury.scores)
    summary |= {"study": study.name, "jury": jury.label, "design": study.sampling["design"]}
    return base | {
        "study": study.name,
        "notes": notes,
        "summary": summary,
        "tables": {
            "means": _table(
                rows, "mean", f"Mean score ({ds.rubric.scale.low}–{ds.rubric.scale.high})", ds
            ),
            "pass": _table(rows, "pass", f"Pass rate (score ≥ {ds.rubric.pass_threshold})", ds),
        },
        "figures": {"means": _figure(rows, ds)},
    }


def _design(study: Study) -> tuple[str, bool]:
    """The recorded design, and whether every item and the population carry their π."""
    sampling = study.sampling or {}
    recorded = bool(sampling.get("population")) and not (
        Item.objects.filter(study=study, inclusion_probability__isnull=True).exists()
    )
    return sampling.get("design", ""), recorded


# --- the estimates ------------------------------------------------------------------------------


def _estimates(
    ds: Dataset,
    study: Study,
    population: Sequence[tuple[int, float, str]],
    jury: Mapping[tuple[int, str], tuple[int | None, str, float | None]],
) -> tuple[list[dict], list[str], dict]:
    """One row per model (and all models together) × dimension, each with both estimands."""
    models = dict(
        Trace.objects.filter(pk__in=[t for t, _, _ in population]).values_list("pk", "model_name")
    )
    sampled = {str(t) for t in study.items.values_list("trace_id", flat=True)}
    dims = ds.dimension_order(d.key for d in ds.rubric.scored if any(k[1] == d.key for k in jury))
    clinicians = item_scores(ds, dims)
    threshold = ds.rubric.pass_threshold
    rows, left_out = [], Counter()
    for model in [ALL_MODELS, *sorted(set(models.values()))]:
        for dim in dims:
            records, missing = _records(population, models, model, dim, jury)
            left_out[dim] += missing if model == ALL_MODELS else 0
            means = {
                str(t): corrected.mean_of_clinicians(scores)
                for t, scores in clinicians[dim].items()
                if scores and str(t) in sampled
            }
            row = {"model": model, "dimension": ds.label(dim), "key": dim}
            for name, transform in (
                ("mean", float),
                ("pass", lambda x: corrected.passes(x, threshold)),
            ):
                members = corrected.members_for(records, sampled, means, transform)
                row[name] = corrected.three_estimates(members, proportion=name == "pass")
            rows.append(row)
    notes = [
        f"{ds.label(d)}: {n} conversation{'s' if n != 1 else ''} of the population without a "
        "jury score (not applicable or unparseable) left out."
        for d, n in left_out.items()
        if n
    ] + _balance_notes(rows)
    summary = {
        "population": len(population),
        "sampled": len(sampled),
        "scored": len({s.item for s in ds.scores}),
        "clinicians": len({s.rater for s in ds.scores}),
        "min_labelled": corrected.MIN_LABELLED,
        "weighted": any("Hájek" in r["mean"][corrected.PPI].interval for r in rows),
    }
    return rows, notes, summary


def _balance_notes(rows: list[dict]) -> list[str]:
    """Each estimate whose sample failed the balance check (refused or flagged), named."""
    found = []
    for row in rows:
        for name, words in (("mean", "mean"), ("pass", "pass rate")):
            check = row[name][corrected.PPI].balance
            if check:
                found.append(f"{row['model']}, {row['dimension']}, {words}: {check}")
    return found


def _records(population, models, model, dim, jury) -> tuple[list[tuple], int]:
    """(key, jury mean, π, stratum) of the model's conversations the jury scored on `dim`."""
    found, missing = [], 0
    for trace, probability, stratum in population:
        if model != ALL_MODELS and models.get(trace) != model:
            continue
        mean = (jury.get((trace, dim)) or (None, "", None))[2]
        if mean is None:
            missing += 1
            continue
        found.append((str(trace), mean, probability, stratum))
    return found, missing


# --- tables and the figure ----------------------------------------------------------------------


def _cell(estimate: corrected.Estimate) -> dict:
    return {
        "value": estimate.value,
        "ci": list(estimate.ci) if estimate.ci else None,
        "n": estimate.n,
        "method": estimate.interval,
        "reason": estimate.reason,
    }


def _table(rows: list[dict], name: str, title: str, ds: Dataset) -> dict:
    columns = [
        ("model", "Model", "text"),
        ("dimension", "Dimension", "text"),
        ("jury", METHOD_LABELS[corrected.JURY_ONLY], "est"),
        ("clinicians", METHOD_LABELS[corrected.CLINICIANS_ONLY], "est"),
        ("ppi", METHOD_LABELS[corrected.PPI], "est"),
        ("n", "Clinician-scored (n)", "int"),
        ("population", "Jury-scored (N)", "int"),
        ("effective", "Worth n clinician labels", "num"),
        ("lam", "λ", "num"),
        ("method", "PPI interval", "text"),
    ]
    shown = []
    for row in rows:
        found = row[name]
        ppi = found[corrected.PPI]
        shown.append(
            {
                "model": row["model"],
                "dimension": row["dimension"],
                "jury": _cell(found[corrected.JURY_ONLY]),
                "clinicians": _cell(found[corrected.CLINICIANS_ONLY]),
                "ppi": _cell(ppi),
                "n": ppi.n,
                "population": found[corrected.JURY_ONLY].n,
                "effective": ppi.effective_n,
                "lam": ppi.lam,
                "method": ppi.interval or ppi.reason,
            }
        )
    note = (
        "95% intervals. Jury only: the panel's mean per conversation over every conversation "
        "of the population, normal interval; on the jury's own scale, not corrected. Clinicians "
        "only: an item's score is the mean of its clinicians' scores, t interval on the "
        "clinician-scored items (Wilson's interval for a pass rate). PPI++: the jury's mean on the conversations clinicians did not "
        "score plus the clinicians-minus-jury correction on those they did, λ power-tuned "
        "(0: the jury adds nothing, 1: classic PPI), t interval with n − 1 df, the correction's "
        "variance pooled with pseudo-labels so that a small sample that happens to agree "
        f"cannot claim certainty ({corrected.PSEUDO_MEAN:.2f} pseudo-misses for a mean, one per "
        "pass/fail cell for a pass rate). “Worth n clinician labels”: n × var(clinicians only) / var(PPI), at most "
        "the population. A pass is a mean at or above the pass mark. Fewer than "
        f"{corrected.MIN_LABELLED} clinician-scored items: not enough evidence. Sampled items "
        "not scored yet count as unscored (assumed missing at random). A sample whose jury "
        f"mean strays from the population's by {corrected.REFUSE_Z} standard errors or more "
        f"is refused, whatever design it records; by {corrected.FLAG_Z} or more it is flagged."
    )
    return table(title, columns, shown, note)


def _figure(rows: list[dict], ds: Dataset) -> dict:
    """Per dimension, each model's three estimates of the mean with their intervals."""
    dims = list(dict.fromkeys(r["dimension"] for r in rows))
    if not dims:
        fig = empty_figure("Means three ways", "No dimension has jury scores.")
        return figure(fig, "means", "Means three ways")
    n_rows, n_cols = grid(len(dims), 2)
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=dims, shared_xaxes=False)
    for i, dim in enumerate(dims):
        mine = [r for r in rows if r["dimension"] == dim]
        for j, method in enumerate(METHOD_LABELS):
            fig.add_trace(_points(mine, method, j), row=i // n_cols + 1, col=i % n_cols + 1)
            fig.data[-1].showlegend = i == 0
    fig.update_xaxes(range=[0.8, 5.2], title_text="mean score")
    fig.update_yaxes(**_ticks(rows), autorange="reversed")
    title = "Each model's mean three ways (95% CIs); missing points: not enough evidence"
    return figure(apply_layout(fig, title, height=260 * n_rows + 80), "means", "Means three ways")


def _points(rows: list[dict], method: str, j: int) -> go.Scatter:
    found = [(r["model"], r["mean"][method]) for r in rows if r["mean"][method].value is not None]
    offsets = {corrected.JURY_ONLY: -0.2, corrected.CLINICIANS_ONLY: 0.0, corrected.PPI: 0.2}
    models = [r["model"] for r in rows]
    return go.Scatter(
        x=[e.value for _, e in found],
        y=[models.index(m) + offsets[method] for m, _ in found],
        mode="markers",
        marker={"color": PALETTE[j], "size": 8},
        error_x={
            "type": "data",
            "symmetric": False,
            "array": [e.ci[1] - e.value for _, e in found],
            "arrayminus": [e.value - e.ci[0] for _, e in found],
        },
        name=METHOD_LABELS[method],
        legendgroup=method,
        text=[f"{m}: {e.value:.2f} [{e.ci[0]:.2f}, {e.ci[1]:.2f}], n = {e.n}" for m, e in found],
        hoverinfo="text",
    )


def _ticks(rows: list[dict]) -> dict[str, Any]:
    models = list(dict.fromkeys(r["model"] for r in rows))
    return {"tickvals": list(range(len(models))), "ticktext": models}
