"""The jury page: whether the jury's scores fall inside the clinicians' envelope, per dimension
and per comparison mode, and beside it whether the jury can stand in for a clinician (the
alt-test), with the verdicts left out and the scatter and confusion figures.
"""

from __future__ import annotations

import copy
import html
import statistics

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from annotation.dashboards.breakdowns import breakdown
from annotation.dashboards.common import agree, item_scores, page_summary
from annotation.dashboards.figures import apply_layout, empty_figure, figure, grid
from annotation.dashboards.loading import Dataset
from annotation.dashboards.tables import table
from annotation.pure import agreement
from annotation.pure import alt_test as alt
from annotation.pure.envelope import (
    OVERRIDDEN,
    OVERRIDDEN_INVERTS,
    WITHHELD,
    WITHHELD_VERDICTS,
    offered,
)
from annotation.pure.envelope import envelope as envelope_verdict
from jury import qualification
from jury.models import Panel
from jury.pure import validity
from jury.verdicts import STATUS_WORDS
from ratings.rubric import Scale, cached_rubric
from ratings.scale import DEFAULT_SCALE
from ratings.ties import DEFAULT_TIE_RULE, TIE_RULE_WORDS

MODE_LABELS = {
    "every_pair": "every jury–clinician pair",
    "clinician_mean": "jury vs the clinicians' mean",
    "mean_within_1": "mean, clinicians > 1 away left out",
    "mean_within_2": "mean, clinicians > 2 away left out",
}


# --- jury vs clinicians ----------------------------------------------------------------------------


def jury_page(ds: Dataset) -> dict:
    ratings = ds.ratings()
    result = agree(ratings, ds.filters.margin, epsilon=ds.filters.epsilon, scale=ds.rubric.scale)
    dims = [d for d in ds.dimension_order(result) if result[d]["has_jury"]]
    tables = {
        "envelope": _envelope_table(
            ds, result, dims, other_tie_rules(ratings, result, dims, ds.rubric.scale)
        ),
        "alt_test": _alt_table(ds, result, dims),
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
    summary = page_summary(ds) | {
        "headline": headline(ds, result, dims),
        # Whether the jury is qualified: its verdicts are gated when served (`gate`).
        "standings": standings(ds),
    }
    return {"summary": summary, "tables": tables, "figures": figures}


# --- the verdict is offered only for a qualified jury ------------------------------------------


def standings(ds: Dataset) -> dict:
    """The jury's standing as plain data, cached with the page (the stamp moves when a
    calibration record is written or re-opened): the page's jury, and for a breakdown by
    judge or by panel each group's own jury."""
    if ds.panel is None:
        return {}
    rubric = cached_rubric(ds.panel.rubric_name, ds.panel.rubric_version)

    labels = {d.key: d.label for d in rubric.dimensions}

    def plain(standing) -> dict:
        return {
            "text": standing.text,
            "reason": standing.reason,
            "missing": standing.missing,
            "qualified": sorted(standing.qualified),
            "validity": plain_validity(standing.validity, labels),
        }

    groups = {}
    if ds.filters.breakdown == "judge":
        groups = {j.name: plain(qualification.standing(ds.panel, j)) for j in ds.panel.judges.all()}
    elif ds.filters.breakdown == "panel":
        groups = {p.name: plain(qualification.standing(p)) for p in Panel.objects.all()}
    return {
        "jury": plain(qualification.standing(ds.panel, ds.judge)),
        "groups": groups,
        "tracks": {d.label: d.track for d in rubric.dimensions},
    }


def plain_validity(standing: validity.Standing, labels: dict[str, str]) -> dict:
    """A jury's validity as the page shows it: its verdict, the dimensions (labels) it
    inverts on, and one line per dimension with its figures (jury.pure.validity)."""
    return {
        "verdict": standing.verdict,
        "inverts": [labels.get(key, key) for key in standing.inverts],
        "lines": [
            f"{labels.get(row.dimension, row.dimension)}: {row.verdict} — {figures}"
            + (f"; {to_decide}" if to_decide else "")
            for row, figures, to_decide in standing.described
        ],
    }


def _inverts_reason(inverts: list[str]) -> str:
    return (
        f"The jury's scores invert on {_and(inverts)}: conversations that failed their "
        "automatic outcome checks score higher than those that passed."
    )


def gate(data: dict, override: bool) -> dict:
    """The jury page's data with each envelope verdict offered only where the jury is
    qualified on the dimension's track and its scores do not invert on the dimension
    (annotation.pure.envelope.offered), or shown by the researcher's override, which is then
    said beside every verdict. Pure and a copy: the
    cached data is never changed, and serving it costs no query."""
    found = (data.get("summary") or {}).get("standings") or {}
    if not found:
        return data
    data = copy.deepcopy(data)
    jury, tracks = found["jury"], found["tracks"]
    inverts = jury["validity"]["inverts"]
    problems = [jury["text"]] if jury["text"] else []
    problems += [_inverts_reason(inverts)] if inverts else []
    summary = data["summary"]
    summary |= {
        "qualification": " ".join(problems),
        "override": override and bool(problems),
        "validity": jury["validity"],
    }
    if problems and not override:
        summary["headline"] = " ".join(_withheld_headline(jury, inverts)) + (
            " Show the verdicts anyway if you must (the page then says so)."
        )
    elif problems and summary.get("headline"):
        notes = [OVERRIDDEN] if jury["text"] else []
        notes += [OVERRIDDEN_INVERTS] if inverts else []
        summary["headline"] += f" ({'; '.join(notes)}.)"
    tables = data.get("tables", {})
    for name in ("envelope", "alt_test"):
        if name in tables:
            _gate_table(
                tables[name],
                lambda row: row["track"] in jury["qualified"],
                lambda row: row["dimension"] in inverts,
                override,
            )
    if "breakdown" in tables:
        groups = found["groups"]

        def qualified(row) -> bool:
            standing = groups.get(row["group"], jury)
            return tracks.get(row["dimension"], "") in standing["qualified"]

        def inverting(row) -> bool:
            standing = groups.get(row["group"], jury)
            return row["dimension"] in standing["validity"]["inverts"]

        _gate_table(tables["breakdown"], qualified, inverting, override)
    return data


def _withheld_headline(jury: dict, inverts: list[str]) -> list[str]:
    sentences = []
    if jury["text"]:
        sentences.append(
            f"Envelope verdicts withheld on the {' and '.join(jury['missing'])} track (the "
            "alt-test's too): "
            f"{jury['reason']} Pass a calibration round first."
        )
    if inverts:
        sentences.append(
            f"Envelope verdicts withheld on {_and(inverts)} (the alt-test's too): the jury's "
            "scores invert there "
            "(conversations that failed their automatic outcome checks score higher than "
            "those that passed)."
        )
    return sentences


GATED = ("verdict", "alt_verdict", "family_verdict")  # the columns that hold verdicts


def _gate_table(found: dict, qualified, inverting, override: bool) -> None:
    keys = [c["key"] for c in found["columns"]]
    for raw, shown in zip(found["rows"], found["display"], strict=True):
        row = dict(zip(keys, raw, strict=True))
        for at in [keys.index(k) for k in GATED if k in keys]:
            verdict, note = offered(raw[at], qualified(row), override, inverting(row))
            if note:
                _gate_cell(raw, shown, at, verdict, note)


def _gate_cell(raw: list, shown: dict, at: int, verdict: str, note: str) -> None:
    raw[at] = verdict if verdict in WITHHELD_VERDICTS else f"{verdict} ({note})"
    cell = shown["cells"][at]
    if verdict in WITHHELD_VERDICTS:
        shown["cells"][at] = {
            **cell,
            "text": "withheld: not qualified" if verdict == WITHHELD else "withheld: inverts",
            "css": "badge fail",
            "title": note,
        }
    else:
        shown["cells"][at] = {**cell, "text": f"{cell['text']} · override", "title": note}


def headline(ds: Dataset, result: dict, dims: list[str]) -> str:
    """One sentence a researcher can quote: on how many dimensions the jury is inside the
    clinicians' envelope, and which are not, grouped by verdict and reason."""
    if not dims:
        return ""
    envelopes = {key: result[key]["envelope"] for key in dims}
    inside = [k for k, e in envelopes.items() if e["verdict"] == agreement.INSIDE]
    groups: dict[tuple[str, str], list[str]] = {}
    for key, envelope in envelopes.items():
        if envelope["verdict"] == agreement.INSIDE:
            continue
        margin = " (at the margin)" if envelope["at_the_margin"] else ""
        groups.setdefault((envelope["verdict"] + margin, envelope["reason"]), []).append(
            ds.label(key)
        )
    others = [f"{verdict} on {_and(names)} ({why})" for (verdict, why), names in groups.items()]
    sentence = f"Jury inside the clinicians' envelope on {len(inside)} of {len(dims)} dimensions"
    sentence += ", each dimension tested on its own (95%, no correction across dimensions)"
    envelope = sentence + ("; " + "; ".join(others) if others else "") + "."
    return f"{envelope} {alt_headline(ds, result, dims)}"


def alt_headline(ds: Dataset, result: dict, dims: list[str]) -> str:
    """The alt-test across the dimensions, with the family controlled: one Benjamini–Yekutieli
    across every dimension's clinicians (the verdicts `alt_test_family` holds)."""
    tests = {key: result[key]["alt_test_family"]["ordinal"] for key in dims}
    epsilon = next(iter(tests.values()))["epsilon"]
    standing = [k for k, t in tests.items() if t["verdict"] == alt.STANDS_IN]
    tested = [t for t in tests.values() if t["verdict"] != alt.NOT_ENOUGH]
    short: dict[str, list[str]] = {}
    for key, test in tests.items():
        if test["verdict"] == alt.NOT_ENOUGH:
            short.setdefault(_too_few_clinicians(test), []).append(ds.label(key))
    if not tested:
        sentence = f"Alt-test (ε = {epsilon:g}): no dimension could be tested"
    else:
        sentence = (
            f"Alt-test (ε = {epsilon:g}): the jury can stand in for a clinician on "
            f"{len(standing)} of {len(dims)} dimensions, Benjamini–Yekutieli across all "
            f"{sum(t['n_clinicians'] for t in tested)} clinician comparisons of the family "
            f"(q = {alt.Q:g})"
        )
    reasons = [f"not enough evidence on {_and(names)} ({why})" for why, names in short.items()]
    return sentence + ("; " + "; ".join(reasons) if reasons else "") + "."


def _too_few_clinicians(test: dict) -> str:
    """'0 of 2 clinicians with 30+ items; 3 needed': the reason, short, for the headline (the
    alt-test table has it in full)."""
    total = test["n_clinicians"] + len(test["too_few_items"])
    return (
        f"{test['n_clinicians']} of {total} clinicians with {test['min_items']}+ items; "
        f"{test['min_clinicians']} needed"
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


TIE_CHECK_RESAMPLES = 2_000


def other_tie_rules(
    ratings: list, result: dict, dims: list[str], scale: Scale = DEFAULT_SCALE
) -> dict[str, dict[str, str]]:
    """dimension → {tie rule: verdict} for the rules under which the verdict differs. Only a
    jury of panel means (2.5) can depend on the rule; whole-score juries are skipped."""
    scores = agreement.split_by_dimension(ratings, scale)
    changed: dict[str, dict[str, str]] = {}
    for key in dims:
        envelope = result[key]["envelope"]
        jury = scores[key].jury
        if (
            envelope["verdict"] == agreement.NOT_ENOUGH
            and envelope["n_items"] < envelope["min_items"]
        ):
            continue  # too few items under every rule
        if all(float(v).is_integer() for v in jury.values()):
            continue
        for rule in agreement.TIE_RULES:
            if rule == envelope["tie_rule"]:
                continue
            other = envelope_verdict(
                scores[key].clinicians,
                jury,
                margin=envelope["margin"],
                min_items=envelope["min_items"],
                n_resamples=TIE_CHECK_RESAMPLES,
                tie_rule=rule,
                scale=scale,
            )
            if other.verdict != envelope["verdict"]:
                changed.setdefault(key, {})[rule] = other.verdict
    return changed


def _envelope_table(ds: Dataset, result: dict, dims: list[str], tie_rules: dict) -> dict:
    margin = ds.filters.margin
    rows = []
    for key in dims:
        envelope = result[key]["envelope"]
        verdict = envelope["verdict"]
        elsewhere = "; ".join(
            f"{TIE_RULE_WORDS[rule].split(' (')[0]}: {other}"
            for rule, other in tie_rules.get(key, {}).items()
        )
        rows.append(
            {
                "track": ds.track(key),
                "dimension": ds.label(key),
                "items": envelope["n_items"],
                "jury_adjacent": envelope["jury_adjacent"],
                "clinician_adjacent": envelope["clinician_adjacent"],
                "difference": envelope["adjacent_difference"],
                "jury_kappa": envelope["jury_kappa"],
                "clinician_kappa": envelope["clinician_kappa"],
                "kappa_difference": envelope["kappa_difference"],
                "verdict": verdict,
                "alt_verdict": result[key]["alt_test"]["ordinal"]["verdict"],
                "alt_rho": result[key]["alt_test"]["ordinal"]["advantage"],
                "why": envelope["reason"]
                + (" · at the margin" if envelope["at_the_margin"] else "")
                + (f" · with {elsewhere}" if elsewhere else ""),
            }
        )
    first = next((result[key]["envelope"] for key in dims), None)
    min_items = first["min_items"] if first else agreement.MIN_ITEMS
    resamples = first["n_resamples"] if first else agreement.VERDICT_RESAMPLES
    note = (
        "On items with a jury score and 2 or more clinicians. Adjacent agreement (within 1 "
        "point) per item — the jury with each clinician, the clinicians with each other — "
        "averaged over items with equal weights on both sides; quadratic-weighted Cohen's "
        "kappa per pair of raters, averaged over the pairs (the same estimator for the jury "
        "and the clinicians). 95% intervals: one paired percentile bootstrap over items "
        f"({resamples:,} resamples), widened for the sampling of clinicians by two-way "
        "variance components (items × clinicians) on Student's t; hover a figure for its n, "
        "method and "
        f"Monte-Carlo error. Inside: both differences' intervals within ±{margin:g} (TOST, "
        "2.5% per side) and the jury's kappa interval above 0. Below / above: a difference's "
        f"interval wholly beyond −{margin:g} / +{margin:g}. Not enough evidence: fewer than "
        f"{min_items} items, or clinicians' scores that do not vary. At the margin: an endpoint "
        "within its Monte-Carlo error of the threshold. A panel's mean between two scores meets "
        f"whole scores {TIE_RULE_WORDS[DEFAULT_TIE_RULE]}; where another tie rule would change "
        f"a verdict ({TIE_CHECK_RESAMPLES:,} resamples), Why says so."
    )
    columns = [
        ("track", "Track", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("jury_adjacent", "Jury–clinician adjacent", "est"),
        ("clinician_adjacent", "Clinician–clinician adjacent", "est"),
        ("difference", "Adjacent difference", "est"),
        ("jury_kappa", "Jury κ", "est"),
        ("clinician_kappa", "Clinicians' κ", "est"),
        ("kappa_difference", "κ difference", "est"),
        ("verdict", f"Verdict (margin ±{margin:g})", "verdict"),
        ("alt_verdict", f"Alt-test: stands in? (ε {ds.filters.epsilon:g})", "verdict"),
        ("alt_rho", "Alt-test ρ", "num"),
        ("why", "Why", "text"),
    ]
    note += (
        " Beside it, the alt-test on the scores, this dimension alone (the next table has it on "
        "pass/fail too, within the family of dimensions, and why)."
    )
    return table("Is the jury inside the human envelope?", columns, rows, note)


SCALE_WORDS = {alt.ORDINAL: "scores (−RMSE)", alt.PASS_FAIL: "pass/fail (accuracy)"}


def _alt_table(ds: Dataset, result: dict, dims: list[str]) -> dict:
    rows = []
    for key in dims:
        for scale in alt.SCALES:
            test = result[key]["alt_test"][scale]
            in_family = result[key]["alt_test_family"][scale]
            rows.append(
                {
                    "track": ds.track(key),
                    "dimension": ds.label(key),
                    "scale": SCALE_WORDS[scale],
                    "items": test["n_items"],
                    "clinicians": test["n_clinicians"],
                    "wins": f"{test['wins']} of {test['n_clinicians']} clinicians",
                    "winning_rate": test["winning_rate"],
                    "rho": test["advantage"],
                    "verdict": test["verdict"],
                    "family_verdict": in_family["verdict"],
                    "why": test["reason"],
                }
            )
    first = next((result[key]["alt_test"]["ordinal"] for key in dims), None)
    epsilon = first["epsilon"] if first else ds.filters.epsilon
    family_size = sum(
        result[key]["alt_test_family"]["ordinal"]["verdict"] != alt.NOT_ENOUGH for key in dims
    )
    note = (
        "The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): can the jury "
        "stand in for a clinician? Leave one clinician out; on each item that clinician scored "
        "with another, compare how well the jury and the left-out clinician align with the "
        "others (−RMSE of the scores; accuracy on pass/fail). ρ_f and ρ_h: the shares of items "
        "where each aligns at least as well (a tie counts for both). Per clinician a one-sided "
        f"paired t-test of ρ_h − ρ_f ≥ ε = {epsilon:g} (ε is the cost-benefit margin: how much "
        "less often than a clinician the jury may align, given what it saves; the paper "
        "suggests 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers, and "
        "less when clinicians agree less). Benjamini–Yekutieli across the clinicians at "
        f"q = {alt.Q:g}; the jury wins against a clinician whose null is rejected; ω, the "
        f"share it wins against; stands in when ω ≥ {alt.WINNING_RATE:g}. ρ, the mean of ρ_f "
        "over clinicians, ranks judges and panels (the breakdown by judge or panel). Needs "
        f"{alt.MIN_ITEMS}+ items per clinician (fewer are left out, listed) and "
        f"{alt.MIN_CLINICIANS}+ clinicians; otherwise not enough evidence. A jury giving every "
        "item one score never stands in. In the family: the same with one Benjamini–Yekutieli "
        f"across every clinician of the {family_size} dimensions tested (scores and pass/fail "
        "each their own family), which the headline quotes."
    )
    columns = [
        ("track", "Track", "text"),
        ("dimension", "Dimension", "text"),
        ("scale", "On", "text"),
        ("items", "Items", "int"),
        ("wins", "Jury wins against", "text"),
        ("winning_rate", "ω", "num"),
        ("rho", "ρ", "num"),
        ("verdict", "This dimension alone", "verdict"),
        ("family_verdict", f"In the family ({family_size} tested)", "verdict"),
        ("why", "Why", "text"),
    ]
    return table("Can the jury stand in for a clinician? (alt-test)", columns, rows, note)


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
        "Every jury–clinician pair on an item (pairs pooled, so items with more clinicians "
        "weigh more; the envelope above weighs items equally); quadratic-weighted Cohen's "
        "kappa on the pooled pairs; a panel's mean meets whole scores by the tie rule for exact, "
        "adjacent and kappa, and is used unrounded for MAE, bias and correlation; bias > 0 "
        "means the jury scored higher."
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
        "meet a mean between scores by the tie rule (halves up unless set otherwise: 2.5 → 3); "
        "MAE and bias use the unrounded means of both sides."
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
    note = (
        "Not applicable, unparseable, truncated, N/A-where-not-allowed and error ratings are"
        " never numbers: left out, counted."
    )
    return table("Left out", columns, rows, note, empty="Nothing was left out.")


# --- figures -------------------------------------------------------------------------------------


def _jitter(trace: int, salt: int) -> float:
    """A small, repeatable offset so items with the same scores do not hide each other."""
    return ((trace * 2654435761 + salt * 40503) % 1000 / 1000 - 0.5) * 0.24


def _scatter(ds: Dataset, dims: list[str]) -> go.Figure:
    title = "Jury score vs the clinicians' mean, per item (band: within 1 point)"
    if not dims or ds.jury is None:
        return empty_figure(title, "no jury scores on these conversations")
    rows, cols = grid(len(dims))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[ds.label(d) for d in dims])
    per_item = item_scores(ds, dims)
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
    return apply_layout(fig, title, height=330 * rows)


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
        return empty_figure(title, "no jury scores on these conversations")
    rows, cols = grid(len(dims))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[ds.label(d) for d in dims],
        horizontal_spacing=0.08,
        vertical_spacing=0.16 if rows > 1 else 0.1,
    )
    per_item = item_scores(ds, dims)
    scale = ds.rubric.scale
    for i, key in enumerate(dims):
        counts = np.zeros((len(scale.points), len(scale.points)), dtype=int)
        for trace, scores in per_item[key].items():
            jury = ds.jury.scores.get((trace, key))
            if jury and jury[0] is not None:
                for score in scores:
                    counts[scale.index(jury[0]), scale.index(score)] += 1
        row, col = divmod(i, cols)
        fig.add_trace(
            go.Heatmap(
                z=counts,
                x=list(scale.points),
                y=list(scale.points),
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
    return apply_layout(fig, title, height=330 * rows, coloraxis={"colorscale": "Blues"})
