"""The live agreement dashboards (DESIGN §7, issue 10): clinicians' current scores and a jury's
verdicts read from the database as `agreement.Rating`s, every agreement figure computed by the
pure `agreement` module, and each page's results kept as plain data (numbers, tables of display
strings, rendered plotly fragments and their JSON) in the shared cache.

Why a stamp. The pages poll every 5 s while clinicians work. Each poll first asks the database
one question: how many submissions and verdicts there are and the newest of each (plus the
last reference edit or withdrawal, and the cell metrics of runs). The answer is part of every
cache key, so a quiet poll costs that one query and a new score makes the next poll recompute.
Row ids repeat across databases (a test database, a fresh demo) while the cache outlives them,
so the newest timestamps are part of the stamp as well as the ids.

Why fewer resamples live. A page holds dozens of intervals; with the module's 2,000 resamples
a cold recompute of 20,000 scores misses the 2 s target (DESIGN §10), so the live pages use
`LIVE_RESAMPLES` and say so beside every table ("CIs from 500 resamples"). Breakdowns, with
many small groups, use fewer still (`BREAKDOWN_RESAMPLES`), and say so too.

What the jury is here: a panel's verdict per conversation and dimension, its repetitions
combined as `jury.verdicts.panel_records` combines them (the mean of the panel scores), then
rounded half up to a 1–5 score; or one judge alone, the same way. A verdict that is not a
number stays what it is (not applicable, unparseable, error) and is left out and counted.

Researchers are not blinded: models, runs and cases appear here. Clinicians appear only by
their pseudonymous code. Nothing in this module is reachable from a clinician's page.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import math
import secrets
import statistics
import textwrap
import warnings
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, TextIO
from urllib.parse import urlencode

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from annotation import agreement
from annotation.agreement import Rating, half_up
from annotation.export import write_csv
from annotation.models import Assignment, AuditEvent, Item, Study, Submission
from jury import aggregate
from jury.models import Judge, Panel, Verdict
from jury.rubric import REALISM, Rubric, cached_rubric
from jury.verdicts import STATUS_WORDS, panel_status, verdicts_of
from patientagentbench.analysis.figures import LAYOUT, figure_config, figure_document, figure_html
from patientagentbench.models import CellMetrics, Run, Task, Trace

DATA_VERSION = 5  # part of every cache key: raise it when the shape of the cached data changes
LIVE_RESAMPLES = 500
BREAKDOWN_RESAMPLES = 200
CACHE_SECONDS = 24 * 3600
COMPUTE_LOCK_SECONDS = 60  # a recompute takes seconds; a crashed one frees the page after this
POLL_SECONDS = 5
DRIFT_WINDOW = 20  # comparisons with the reference in each clinician's rolling window
LEAST_REALISTIC = 15
JURY_RATER = "jury"
LIVE_PAGES = ("jury", "raters", "quality")
TRACK_ORDER = ("clinical", "operations", REALISM)
QUALITY_DIMENSIONS = ("task_completion", "clinical_safety")
CELL_METRICS = {"tss": "TSS", "ac": "AC", "divergence_point": "Divergence point"}
MODE_LABELS = {
    "every_pair": "every jury–clinician pair",
    "clinician_mean": "jury vs the clinicians' mean",
    "mean_within_1": "mean, clinicians > 1 away left out",
    "mean_within_2": "mean, clinicians > 2 away left out",
}
STAMP_ACTIONS = ("reference_set", "withdrawn", "consensus_adopted")
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


# --- what a page shows ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """A dashboard's selection, read leniently from a query string (an unknown value selects
    nothing rather than failing a poll)."""

    study: int | None = None  # a study or a calibration round
    run: int | None = None
    model: str = ""
    attribute: str = ""  # "key=value" of the case's attributes
    panel: int | None = None  # None: the panel with most verdicts on these conversations
    judge: int | None = None  # one judge of the panel alone as the jury
    margin: float = agreement.MARGIN
    breakdown: str = ""  # "", "model", "judge", "panel" or "attr:<key>"
    dimension: str = ""  # the raters page's clinician matrix
    realism_by: str = ""  # the raters page's realism breakdown (a case attribute)

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> Filters:
        text = {f.name: str(query.get(f.name) or "").strip()[:200] for f in fields(cls)}
        return cls(
            study=_int(text["study"]),
            run=_int(text["run"]),
            model=text["model"],
            attribute=text["attribute"] if "=" in text["attribute"] else "",
            panel=_int(text["panel"]),
            judge=_int(text["judge"]),
            margin=_margin(text["margin"]),
            breakdown=text["breakdown"],
            dimension=text["dimension"],
            realism_by=text["realism_by"],
        )

    def query(self) -> str:
        """The query string giving these filters back; defaults left out."""
        defaults = Filters()
        chosen = {
            name: value
            for name, value in asdict(self).items()
            if value not in (None, "") and value != getattr(defaults, name)
        }
        return urlencode(chosen)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:24]


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return agreement.MARGIN
    return min(max(value, 0.01), 1.0) if math.isfinite(value) else agreement.MARGIN


# --- the stamp: one query that says whether anything changed ------------------------------------


def stamp() -> str:
    """Changes whenever a score, a verdict, a reference, a withdrawal or a run's cell metrics
    change; one query (scalar subqueries, so no table is joined to another)."""
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql(), list(STAMP_ACTIONS))
        row = cursor.fetchone()
    return hashlib.sha256(repr(row).encode()).hexdigest()[:20]


def _stamp_sql() -> str:
    quote = connection.ops.quote_name
    submission, verdict = quote(Submission._meta.db_table), quote(Verdict._meta.db_table)
    audit, cells = quote(AuditEvent._meta.db_table), quote(CellMetrics._meta.db_table)
    actions = ", ".join(["%s"] * len(STAMP_ACTIONS))
    parts = [
        f"(SELECT COUNT(*) FROM {submission})",
        f"(SELECT MAX(id) FROM {submission})",
        f"(SELECT MAX(submitted_at) FROM {submission})",
        f"(SELECT COUNT(*) FROM {verdict})",
        f"(SELECT MAX(id) FROM {verdict})",
        f"(SELECT MAX(created_at) FROM {verdict})",
        f"(SELECT MAX(id) FROM {audit} WHERE action IN ({actions}))",
        f"(SELECT COUNT(*) FROM {cells})",
        f"(SELECT MAX(computed_at) FROM {cells})",
    ]
    return "SELECT " + ", ".join(parts)


def page_data(page: str, filters: Filters, current: str | None = None) -> dict:
    """A live page's results as plain data, computed only when the stamp has moved."""
    base = f"dashboards:v{DATA_VERSION}:{page}:{filters.digest()}"
    return _cached(base, current or stamp(), lambda: COMPUTE[page](load(filters)))


def _cached(base: str, current: str, compute: Callable[[], dict]) -> dict:
    """The data for this stamp; else computed once. While one request computes, other polls
    for the same page and filters get the previous numbers (their stamp says so, so their
    next poll asks again) instead of computing the same thing alongside it."""
    data = cache.get(f"{base}:{current}")
    if data is not None:
        return data
    lock = f"{base}:computing"
    if not cache.add(lock, current, COMPUTE_LOCK_SECONDS):
        previous = cache.get(cache.get(f"{base}:latest") or "")
        if previous is not None:
            return previous
    try:
        data = compute() | {"stamp": current, "computed_at": timezone.now().isoformat()}
        cache.set(f"{base}:{current}", data, CACHE_SECONDS)
        cache.set(f"{base}:latest", f"{base}:{current}", CACHE_SECONDS)
    finally:
        cache.delete(lock)
    return data


# --- loading: scores, conversations and the jury --------------------------------------------


@dataclass(frozen=True)
class Conversation:
    trace: int
    model: str
    case: str
    suite: str
    run: int
    task: int
    temperature: float | None
    correct: bool | None
    attributes: dict[str, Any]

    def values_of(self, attribute: str) -> list[str]:
        value = self.attributes.get(attribute)
        if value is None:
            return []
        return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


@dataclass(frozen=True)
class Score:
    """One clinician's current score on one dimension of one conversation in one study."""

    trace: int
    clinician: str
    dimension: str
    score: int | None  # None: not applicable
    at: datetime
    study: int
    reference: int | None = None  # the item's reference score, on a reference item


@dataclass(frozen=True)
class Jury:
    """Jury scores per (trace, dimension): (rounded score or None, status, unrounded mean)."""

    label: str
    scores: dict[tuple[int, str], tuple[int | None, str, float | None]]


@dataclass
class Dataset:
    filters: Filters
    rubric: Rubric
    scores: list[Score]
    conversations: dict[int, Conversation]
    studies: dict[int, dict]
    panel: Panel | None = None
    judge: Judge | None = None
    jury: Jury | None = None
    warnings: list[str] = field(default_factory=list)
    _ratings: dict[bool, list[Rating]] = field(default_factory=dict, repr=False)
    _matrices: dict[str, dict] = field(default_factory=dict, repr=False)

    def ratings(
        self, traces: set[int] | None = None, jury: Jury | None | bool = True
    ) -> list[Rating]:
        """The agreement module's input: one rating per (conversation, clinician, dimension),
        the latest where a clinician scored a conversation in two studies, plus the jury."""
        chosen = self.jury if jury is True else (jury or None)
        if traces is not None or not isinstance(jury, bool):
            return to_ratings(self.scores, chosen, traces)
        if jury not in self._ratings:  # the whole set is asked for by many tables
            self._ratings[jury] = to_ratings(self.scores, chosen)
        return self._ratings[jury]

    def matrix(self, dimension: str) -> dict:
        """`agreement.clinician_matrix` of one dimension, point values, computed once."""
        if dimension not in self._matrices:
            mine = [r for r in self.ratings(jury=False) if r.dimension == dimension]
            self._matrices[dimension] = agreement.clinician_matrix(mine, dimension, n_resamples=0)
        return self._matrices[dimension]

    @property
    def models(self) -> list[str]:
        return sorted({c.model for c in self.conversations.values()})

    def dimension_order(self, keys: Iterable[str]) -> list[str]:
        """By track (clinical, operations, realism), then in rubric order."""
        order = {d.key: i for i, d in enumerate(self.rubric.dimensions)}

        def place(key: str) -> tuple:
            track = self.track(key)
            rank = TRACK_ORDER.index(track) if track in TRACK_ORDER else len(TRACK_ORDER)
            return (rank, order.get(key, len(order)), key)

        return sorted(set(keys), key=place)

    def track(self, key: str) -> str:
        try:
            return self.rubric.dimension(key).track
        except KeyError:
            return "other"

    def label(self, key: str) -> str:
        try:
            return self.rubric.dimension(key).label
        except KeyError:
            return key.replace("_", " ")


def to_ratings(
    scores: Iterable[Score], jury: Jury | None, traces: set[int] | None = None
) -> list[Rating]:
    latest: dict[tuple[int, str, str], Score] = {}
    for score in scores:  # in submission order: a later study's score replaces an earlier one
        if traces is None or score.trace in traces:
            latest[(score.trace, score.clinician, score.dimension)] = score
    ratings = [
        Rating(
            str(s.trace),
            s.clinician,
            s.dimension,
            s.score,
            agreement.OK if s.score is not None else agreement.NOT_APPLICABLE,
        )
        for s in latest.values()
    ]
    scored = {s.trace for s in latest.values()}
    for (trace, dimension), (value, status, _mean) in (jury.scores if jury else {}).items():
        if trace in scored:
            ratings.append(Rating(str(trace), JURY_RATER, dimension, value, status, agreement.JURY))
    return ratings


def load(filters: Filters) -> Dataset:
    submissions = _submissions(filters)
    conversations = _conversations(submissions, filters.attribute)
    scores = _scores(submissions, conversations)
    studies = {
        row["pk"]: row
        for row in Study.objects.filter(pk__in={s.study for s in scores}).values(
            "pk", "name", "kind", "status", "created_at"
        )
    }
    dataset = Dataset(filters, _rubric(filters), scores, conversations, studies)
    traces = sorted({s.trace for s in scores})
    dataset.panel = _panel(filters.panel, traces)
    if dataset.panel is not None:
        dataset.judge = dataset.panel.judges.filter(pk=filters.judge).first()
        if filters.judge and dataset.judge is None:
            dataset.warnings.append(
                f"That judge is not on panel {dataset.panel.name}: the whole panel is the jury."
            )
        dataset.jury = jury_scores(dataset.panel, traces, dataset.judge)
        if not dataset.jury.scores and traces:
            dataset.warnings.append(
                f"Panel {dataset.panel.name} has no verdicts on these conversations."
            )
    return dataset


def _submissions(filters: Filters):
    submissions = Submission.objects.filter(is_current=True).exclude(
        assignment__status=Assignment.Status.WITHDRAWN
    )
    if filters.study:
        submissions = submissions.filter(assignment__item__study_id=filters.study)
    if filters.run:
        submissions = submissions.filter(assignment__item__trace__run_id=filters.run)
    if filters.model:
        submissions = submissions.filter(assignment__item__trace__model_name=filters.model)
    return submissions


def _conversations(submissions, attribute: str) -> dict[int, Conversation]:
    """The scored conversations, as plain values (a trace's message log is never loaded)."""
    rows = Trace.objects.filter(
        pk__in=submissions.values("assignment__item__trace_id")
    ).values_list(
        "pk",
        "model_name",
        "task__task_id",
        "task__suite__name",
        "run_id",
        "task_id",
        "temperature",
        "correct",
        "task__attributes",
        "task__category",
    )
    conversations = {
        row[0]: Conversation(*row[:8], attributes=case_attributes(row[8], row[9])) for row in rows
    }
    if attribute:
        key, _, value = attribute.partition("=")
        conversations = {
            pk: c for pk, c in conversations.items() if value in c.values_of(key.strip())
        }
    return conversations


def case_attributes(attributes: Any, category: str) -> dict[str, Any]:
    """The case's attributes, nested ones flattened one level (traits.anxiety), with the task
    category; the same reading as the jury's breakdowns."""
    flat: dict[str, Any] = {"category": category} if category else {}
    for key, value in (attributes or {}).items():
        if isinstance(value, Mapping):
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def _scores(submissions, conversations: Mapping[int, Conversation]) -> list[Score]:
    rows = submissions.values_list(
        "assignment__item__trace_id",
        "assignment__item__study_id",
        "assignment__item__is_reference",
        "assignment__item__reference",
        "assignment__clinician__code",
        "scores",
        "submitted_at",
    ).order_by("submitted_at", "pk")
    scores = []
    for trace, study, is_reference, reference, code, given, at in rows:
        if trace not in conversations:
            continue
        references = (reference or {}) if is_reference else {}
        for dimension, value in given.items():
            expected = (references.get(dimension) or {}).get("score")
            scores.append(Score(trace, code, dimension, value, at, study, expected))
    return scores


def _rubric(filters: Filters) -> Rubric:
    study = Study.objects.filter(pk=filters.study).values("rubric_name", "rubric_version").first()
    if study:
        return cached_rubric(study["rubric_name"], study["rubric_version"])
    return cached_rubric()


def _panel(chosen: int | None, traces: Sequence[int]) -> Panel | None:
    if chosen:
        return Panel.objects.filter(pk=chosen).first()
    busiest = (
        Verdict.objects.filter(trace_id__in=traces)
        .values("panel")
        .annotate(n=Count("pk"))
        .order_by("-n", "panel")
        .first()
    )
    return Panel.objects.get(pk=busiest["panel"]) if busiest else None


def jury_scores(panel: Panel, traces: Sequence[int], judge: Judge | None = None) -> Jury:
    """The panel's verdict per conversation and dimension (or one judge's), repetitions
    averaged as `jury.verdicts.panel_records` averages them, rounded half up."""
    verdicts = verdicts_of(panel).filter(trace_id__in=list(traces)).order_by()
    if judge is not None:
        verdicts = verdicts.filter(judge=judge)
    grouped: dict[tuple[int, str], dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for trace, dimension, repetition, status, score in verdicts.values_list(
        "trace_id", "dimension", "repetition", "status", "score"
    ):
        grouped[(trace, dimension)][repetition].append({"status": status, "score": score})
    threshold = cached_rubric(panel.rubric_name, panel.rubric_version).pass_threshold
    scores = {}
    for key, repetitions in grouped.items():
        panels = [
            aggregate.panel_score(answers, panel.aggregation, threshold)
            for answers in repetitions.values()
        ]
        numbers = [p.score for p in panels if p.score is not None]
        if numbers:
            mean = statistics.fmean(numbers)
            scores[key] = (half_up(mean), agreement.OK, mean)
        else:
            excluded: Counter[str] = Counter()
            for p in panels:
                excluded.update(p.n_excluded)
            scores[key] = (None, panel_status(excluded), None)
    label = f"{judge.name} alone (panel {panel.name})" if judge else f"panel {panel.name}"
    return Jury(label, scores)


# --- the filter form's choices --------------------------------------------------------------------


def facets(filters: Filters, page: str) -> list[dict]:
    """The selects of a page's filter form, each option with whether it is chosen."""
    items = Trace.objects.filter(review_items__isnull=False)
    studies = Study.objects.order_by("kind", "-created_at").values_list("pk", "name", "kind")
    runs = Run.objects.filter(pk__in=items.values("run_id")).order_by("-pk")
    models = items.values_list("model_name", flat=True).distinct().order_by("model_name")
    panels = Panel.objects.order_by("name").values_list("pk", "name")
    judges = Judge.objects.order_by("name")
    if filters.panel:
        judges = judges.filter(panels=filters.panel)
    chosen = {k: "" if v is None else str(v) for k, v in asdict(filters).items()}
    selects = [
        ("study", "Study or round", [(pk, f"{n} ({_kind(k)})") for pk, n, k in studies]),
        (
            "run",
            "Run",
            [(r.pk, f"run {r.pk}" + (f" · {r.label}" if r.label else "")) for r in runs],
        ),
        ("model", "Model", [(m, m) for m in models]),
        ("attribute", "Case attribute", [(a, a.replace("=", " = ")) for a in _attribute_options()]),
        ("panel", "Jury panel", [(pk, name) for pk, name in panels]),
        ("judge", "One judge as the jury", [(j.pk, j.name) for j in judges]),
    ]
    if page == "jury":
        selects.append(("breakdown", "Breakdown", _breakdown_options()))
    if page == "raters":
        rubric = _rubric(filters)
        dims = [(d.key, d.label) for d in rubric.dimensions]
        selects.append(("dimension", "Matrix dimension", dims))
        keys = sorted({a.partition("=")[0] for a in _attribute_options()})
        selects.append(("realism_by", "Realism by", [(k, k) for k in keys]))
    return [
        {
            "name": name,
            "label": label,
            "options": [
                {"value": str(v), "label": text, "selected": str(v) == chosen[name]}
                for v, text in options
            ],
        }
        for name, label, options in selects
    ]


def _kind(kind: str) -> str:
    return "calibration round" if kind == Study.Kind.CALIBRATION else "study"


def _attribute_options(limit: int = 30) -> list[str]:
    """key=value for every flat attribute of the reviewed cases (at most `limit` per key)."""
    tasks = Task.objects.filter(traces__review_items__isnull=False).distinct()
    values: dict[str, set[str]] = defaultdict(set)
    for attributes, category in tasks.values_list("attributes", "category"):
        for key, value in case_attributes(attributes, category).items():
            for one in value if isinstance(value, list | tuple) else [value]:
                if isinstance(one, str | int | float | bool):
                    values[key].add(str(one))
    return [
        f"{key}={value}"
        for key in sorted(values)
        if 2 <= len(values[key]) <= limit
        for value in sorted(values[key])
    ]


def _breakdown_options() -> list[tuple[str, str]]:
    keys = sorted({a.partition("=")[0] for a in _attribute_options()})
    fixed = [("model", "by model"), ("judge", "by judge"), ("panel", "by panel")]
    return fixed + [(f"attr:{k}", f"by case {k}") for k in keys]


# --- tables and figures as plain data -----------------------------------------------------------

Column = tuple[str, str, str]  # key, label, kind: text, int, num, pct, est, verdict


def table(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Any]],
    note: str = "",
    empty: str = "Nothing to show yet.",
    highlight: Callable[[Mapping[str, Any]], bool] | None = None,
) -> dict:
    """A table twice: raw values for the CSV, display strings for the page."""
    keys = [key for key, _, _ in columns]
    return {
        "title": title,
        "note": note,
        "empty": empty,
        "columns": [{"key": k, "label": label, "kind": kind} for k, label, kind in columns],
        "rows": [[row.get(k) for k in keys] for row in rows],
        "display": [
            {
                "css": "highlight" if highlight and highlight(row) else "",
                "cells": [_cell(row.get(k), kind) for k, _, kind in columns],
            }
            for row in rows
        ],
    }


VERDICT_WORDS = {agreement.INSIDE: "inside", agreement.OUTSIDE: "outside"}
VERDICT_CSS = {agreement.INSIDE: "badge pass", agreement.OUTSIDE: "badge fail"}


def _cell(value: Any, kind: str) -> dict:
    """What a table cell shows: text, a CSS class, a tooltip, and for an estimate its CI."""
    if kind == "est":
        return _estimate_cell(value)
    if kind == "verdict":
        css = VERDICT_CSS.get(value, "badge cancelled")
        return _shown(VERDICT_WORDS.get(value, value or "—"), css, title=value or "")
    if kind == "bool":
        return _shown("yes", "badge pass") if value else _shown("no", "muted")
    if value is None:
        return _shown("—", "muted")
    formats = {
        "num": lambda v: _fixed(v),
        "pct": lambda v: f"{v:.0%}",
        "int": str,
        "p": lambda v: "< 0.001" if v < 0.001 else f"{v:.3f}",
    }
    if kind in formats:
        return _shown(formats[kind](value), "num")
    return _shown(str(value), "")


def _shown(text: str, css: str, title: str = "", ci: str = "") -> dict:
    return {"text": text, "css": css, "title": title, "ci": ci}


def _fixed(value: float) -> str:
    """Two decimals, without the "-0.00" a tiny negative would print."""
    return f"{(value if abs(value) >= 0.005 else 0.0):.2f}"


def _estimate_cell(estimate: Mapping[str, Any] | None) -> dict:
    if not estimate or estimate.get("value") is None:
        reason = (estimate or {}).get("reason") or ""
        return _shown("—", "muted", title=reason, ci=reason if len(reason) <= 60 else "")
    ci = estimate.get("ci")
    interval = f"[{_fixed(ci[0])}, {_fixed(ci[1])}]" if ci else ""
    return _shown(_fixed(estimate["value"]), "num", estimate.get("reason") or "", interval)


def write_table_csv(data: Mapping[str, Any], out: TextIO) -> None:
    """One column per figure; an estimate becomes value, ci_low, ci_high (and n)."""
    writer = csv.writer(out, lineterminator="\n")
    header = []
    for column in data["columns"]:
        key = column["key"]
        header += [key, f"{key}_ci_low", f"{key}_ci_high"] if column["kind"] == "est" else [key]
    writer.writerow(header)
    for row in data["rows"]:
        out_row: list[Any] = []
        for column, value in zip(data["columns"], row, strict=True):
            if column["kind"] == "est":
                ci = (value or {}).get("ci") or [None, None]
                out_row += [_csv((value or {}).get("value")), _csv(ci[0]), _csv(ci[1])]
            else:
                out_row.append(_csv(value))
        writer.writerow(out_row)


def _csv(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 6)
    return value


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


def _summary(ds: Dataset) -> dict:
    ratings = ds.ratings(jury=False)
    na = sum(1 for r in ratings if r.score is None)
    jury = ds.jury.scores if ds.jury else {}
    return {
        "conversations": len({s.trace for s in ds.scores}),
        "clinicians": len({s.clinician for s in ds.scores}),
        "clinician_scores": len(ratings) - na,
        "not_applicable": na,
        "jury": ds.jury.label if ds.jury else "",
        "jury_scores": sum(1 for v in jury.values() if v[0] is not None),
        "jury_left_out": dict(Counter(v[1] for v in jury.values() if v[0] is None)),
        "resamples": LIVE_RESAMPLES,
        "breakdown_resamples": BREAKDOWN_RESAMPLES,
        "margin": ds.filters.margin,
        "warnings": ds.warnings,
    }


def _agree(ratings: list[Rating], margin: float, resamples: int = LIVE_RESAMPLES) -> dict:
    """`agreement.agreement` as plain data, cached by content: the jury page and the raters
    page (and a study's bundle) often ask for the very same ratings."""
    text = repr((sorted(ratings, key=_rating_key), margin, resamples))
    key = f"dashboards:v{DATA_VERSION}:agree:" + hashlib.sha256(text.encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        result = agreement.agreement(ratings, margin=margin, n_resamples=resamples)
        found = {d: r.as_dict() for d, r in result.items()}
        cache.set(key, found, CACHE_SECONDS)
    return found


def _rating_key(rating: Rating) -> tuple:
    return (rating.item, rating.rater, rating.dimension)


# --- jury vs clinicians ----------------------------------------------------------------------------


def jury_page(ds: Dataset) -> dict:
    result = _agree(ds.ratings(), ds.filters.margin)
    dims = [d for d in ds.dimension_order(result) if result[d]["has_jury"]]
    tables = {
        "envelope": _envelope_table(ds, result, dims),
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
    return {"summary": _summary(ds), "tables": tables, "figures": figures}


def _envelope_table(ds: Dataset, result: dict, dims: list[str]) -> dict:
    margin = ds.filters.margin
    rows = []
    for key in dims:
        envelope = result[key]["envelope"]
        rows.append(
            {
                "track": ds.track(key),
                "dimension": ds.label(key),
                "items": envelope["n_items"],
                "jury_adjacent": envelope["jury_adjacent"],
                "clinician_adjacent": envelope["clinician_adjacent"],
                "difference": envelope["difference"],
                "verdict": envelope["verdict"],
            }
        )
    note = (
        "On items with a jury score and 2 or more clinicians: adjacent agreement (within 1 "
        "point) of the jury with each clinician, of the clinicians with each other, and the "
        "difference with a paired bootstrap 95% CI resampling items. Inside the human "
        f"envelope when that CI lies within ±{margin:g}; outside when it lies wholly beyond; "
        "otherwise inconclusive (more items narrow it)."
    )
    columns = [
        ("track", "Track", "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("jury_adjacent", "Jury–clinician adjacent", "est"),
        ("clinician_adjacent", "Clinician–clinician adjacent", "est"),
        ("difference", "Difference", "est"),
        ("verdict", f"Verdict (margin ±{margin:g})", "verdict"),
    ]
    return table("Is the jury inside the human envelope?", columns, rows, note)


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
        "Every jury–clinician pair on an item; quadratic-weighted Cohen's kappa; bias > 0 means "
        "the jury scored higher."
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
        "use the mean rounded half up (2.5 → 3); MAE and bias use the unrounded mean."
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
    note = "Not applicable, unparseable and error ratings are never numbers: left out, counted."
    return table("Left out", columns, rows, note, empty="Nothing was left out.")


def _item_scores(ds: Dataset, dims: Sequence[str]) -> dict[str, dict[int, list[int]]]:
    """dimension → trace → the clinicians' usable scores."""
    found: dict[str, dict[int, list[int]]] = {d: defaultdict(list) for d in dims}
    for rating in ds.ratings(jury=False):
        if rating.dimension in found and rating.score is not None:
            found[rating.dimension][int(rating.item)].append(rating.score)
    return found


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
                x=list(agreement.SCORES),
                y=list(agreement.SCORES),
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


# --- breakdowns: by model, case attribute, judge or panel ---------------------------------------


def breakdown(ds: Dataset, by: str) -> tuple[dict, dict]:
    """The envelope per group: each model's (or case attribute value's) conversations, or each
    judge of the panel, or each panel, as the jury."""
    rows = []
    for group, ratings in _groups(ds, by):
        # Only the dimensions the jury scored: the others have no envelope to show.
        judged = {r.dimension for r in ratings if r.kind == agreement.JURY}
        mine = [r for r in ratings if r.dimension in judged]
        result = _agree(mine, ds.filters.margin, BREAKDOWN_RESAMPLES)
        for key in ds.dimension_order(result):
            if result[key]["has_jury"]:
                rows.append(_breakdown_row(ds, group, key, result[key]))
    label = _breakdown_label(by)
    columns = [
        ("group", _group_heading(by), "text"),
        ("dimension", "Dimension", "text"),
        ("items", "Items", "int"),
        ("jury_adjacent", "Jury–clinician adjacent", "est"),
        ("clinician_adjacent", "Clinician–clinician adjacent", "est"),
        ("difference", "Difference", "est"),
        ("verdict", "Verdict", "verdict"),
        ("exact", "Exact", "est"),
        ("weighted_kappa", "Weighted κ", "est"),
        ("mae", "MAE", "est"),
        ("bias", "Bias", "est"),
    ]
    note = (
        f"The same figures within each group ({BREAKDOWN_RESAMPLES} resamples per interval, "
        "fewer than above: small groups, many intervals). Intervals widen as groups shrink."
    )
    title = f"Jury vs clinicians {label}"
    data = table(title, columns, rows, note, empty="No group has jury and clinician scores.")
    return data, figure(_forest(rows, ds.filters.margin, title), "breakdown", title)


def _group_heading(by: str) -> str:
    return f"Case {by[5:]}" if by.startswith("attr:") else by.capitalize()


def _breakdown_label(by: str) -> str:
    if by.startswith("attr:"):
        return f"by case {by[5:]}"
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
            yield value, ds.ratings(values[value])
    elif by == "judge" and ds.panel is not None:
        for judge in ds.panel.judges.order_by("name"):
            yield judge.name, ds.ratings(jury=jury_scores(ds.panel, traces, judge))
    elif by == "panel":
        scored = Verdict.objects.filter(trace_id__in=traces).values("panel").distinct()
        for panel in Panel.objects.filter(pk__in=scored).order_by("name"):
            yield panel.name, ds.ratings(jury=jury_scores(panel, traces))


def _breakdown_row(ds: Dataset, group: str, key: str, result: dict) -> dict:
    envelope, pairs = result["envelope"], result["modes"]["every_pair"]
    return {
        "group": group,
        "dimension": ds.label(key),
        "items": envelope["n_items"],
        "jury_adjacent": envelope["jury_adjacent"],
        "clinician_adjacent": envelope["clinician_adjacent"],
        "difference": envelope["difference"],
        "verdict": envelope["verdict"],
        **{name: pairs[name] for name in ("exact", "weighted_kappa", "mae", "bias")},
    }


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


# --- inter-rater reliability ------------------------------------------------------------------------


def raters_page(ds: Dataset) -> dict:
    tables = {
        "alpha": _alpha_table(ds),
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
            _realism_figure(ds, realism_by), "realism", f"Realism by case {realism_by}"
        ),
    }
    summary = _summary(ds) | {"matrix_dimension": dimension, "realism_by": realism_by}
    return {"summary": summary, "tables": tables, "figures": figures}


def _alpha_table(ds: Dataset) -> dict:
    rows = []
    ordered = sorted(ds.studies.values(), key=lambda s: (s["kind"] != "calibration", s["pk"]))
    for study in ordered:
        scores = [s for s in ds.scores if s.study == study["pk"]]
        result = _agree(to_ratings(scores, ds.jury), ds.filters.margin)
        for key in ds.dimension_order(result):
            r = result[key]
            rows.append(
                {
                    "study": study["name"],
                    "kind": _kind(study["kind"]),
                    "dimension": ds.label(key),
                    "items": r["alpha"]["n_items"],
                    "raters": r["alpha"]["n_raters"],
                    "alpha_ordinal": r["alpha"]["ordinal"],
                    "alpha_pass_fail": r["alpha"]["nominal"],
                    "fleiss_kappa": r["fleiss_kappa"],
                    "alpha_with_jury": (r["alpha_with_jury"] or {}).get("ordinal")
                    or {"value": None, "reason": "the jury did not score this dimension"},
                }
            )
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
        "Krippendorff's alpha (krippendorff package): ordinal on the 1–5 scores, nominal on "
        "pass/fail (≥ 3), over items scored by 2 or more clinicians; Fleiss' kappa (nominal: "
        "a 4 against a 5 counts as disagreement, hence lower) over the items with the most "
        "common number of clinicians. Bootstrap 95% CIs resample items."
    )
    return table("Agreement among clinicians, per study and round", columns, rows, note)


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


def _drift_points(ds: Dataset) -> list[dict]:
    """Each comparison of a clinician's score with an item's reference score, oldest first,
    with the clinician's rolling agreement over their last `DRIFT_WINDOW` comparisons."""
    points = []
    windows: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for score in sorted(ds.scores, key=lambda s: (s.at, s.clinician, s.trace, s.dimension)):
        if score.reference is None or score.score is None:
            continue
        window = windows[score.clinician]
        hit = (abs(score.score - score.reference) <= 1, score.score == score.reference)
        window.append(hit)
        recent = window[-DRIFT_WINDOW:]
        points.append(
            {
                "clinician": score.clinician,
                "submitted_at": score.at.isoformat(),
                "study": ds.studies.get(score.study, {}).get("name", score.study),
                "trace": score.trace,
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


def _realism_keys(ds: Dataset) -> list[str]:
    return [d.key for d in ds.rubric.realism]


def _default_attribute(ds: Dataset) -> str:
    values: dict[str, set[str]] = defaultdict(set)
    for conversation in ds.conversations.values():
        for key in conversation.attributes:
            values[key].update(conversation.values_of(key))
    usable = sorted(k for k, v in values.items() if len(v) >= 2)
    preferred = [k for k in ("category", "severity", "personality") if k in usable]
    return (preferred or usable or ["category"])[0]


def _realism_counts(ds: Dataset, attribute: str) -> dict[tuple[str, str], Counter[int]]:
    counts: dict[tuple[str, str], Counter[int]] = defaultdict(Counter)
    keys = set(_realism_keys(ds))
    for score in ds.scores:
        conversation = ds.conversations.get(score.trace)
        if score.dimension in keys and score.score is not None and conversation:
            for value in conversation.values_of(attribute) or ["(none)"]:
                counts[(value, score.dimension)][score.score] += 1
    return counts


def _realism_table(ds: Dataset) -> dict:
    attribute = ds.filters.realism_by or _default_attribute(ds)
    rows = []
    for (value, dimension), counter in sorted(_realism_counts(ds, attribute).items()):
        scores = list(counter.elements())
        rows.append(
            {
                "value": value,
                "dimension": ds.label(dimension),
                "n": len(scores),
                "mean": statistics.fmean(scores),
                "sd": statistics.pstdev(scores),
                **{f"s{s}": counter.get(s, 0) for s in agreement.SCORES},
            }
        )
    columns = [
        ("value", f"Case {attribute}", "text"),
        ("dimension", "Dimension", "text"),
        ("n", "Ratings", "int"),
        ("mean", "Mean", "num"),
        ("sd", "SD", "num"),
        *[(f"s{s}", f"{s}s", "int") for s in agreement.SCORES],
    ]
    note = "Every clinician's realism ratings (whatever their track), 1 implausible … 5 real."
    return table(f"Realism by case {attribute}", columns, rows, note)


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
        for score, colour in zip(agreement.SCORES, colours, strict=True):
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


def _least_realistic_table(ds: Dataset) -> dict:
    keys = set(_realism_keys(ds))
    per_case: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for score in ds.scores:
        conversation = ds.conversations.get(score.trace)
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


# --- consistency and quality ---------------------------------------------------------------------


def quality_page(ds: Dataset) -> dict:
    cells = _cells(ds)
    tables = {
        "cells": _cells_table(cells),
        "correlations": _correlations_table(cells),
        "outcomes": _outcomes_table(ds),
    }
    figures = {
        "consistency": figure(
            _quality_figure(cells), "consistency", "Consistency vs clinician-judged quality"
        )
    }
    if ds.jury is not None:
        tables["by_model"], figures["by_model"] = breakdown(ds, "model")
    return {"summary": _summary(ds) | {"cells": len(cells)}, "tables": tables, "figures": figures}


def _cells(ds: Dataset) -> list[dict]:
    """Per cell (run × task × model × temperature) with clinician scores: the run's consistency
    metrics and the mean of the clinicians' current scores on its conversations."""
    means: dict[tuple, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    traces: dict[tuple, set[int]] = defaultdict(set)
    for score in ds.scores:
        c = ds.conversations.get(score.trace)
        if c is not None and score.dimension in QUALITY_DIMENSIONS and score.score is not None:
            key = (c.run, c.task, c.model, c.temperature)
            means[key][score.dimension].append(score.score)
            traces[key].add(score.trace)
    runs = {c.run for c in ds.conversations.values()}
    cells = []
    for run, task, case, model, temperature, values in CellMetrics.objects.filter(
        run_id__in=runs
    ).values_list("run_id", "task_id", "task__task_id", "model_name", "temperature", "values"):
        key = (run, task, model, temperature)
        if key not in means:
            continue
        cell = {"run": run, "model": model, "case": case, "temperature": temperature}
        cell |= {m: values.get(m) for m in (*CELL_METRICS, "correct_rate")}
        cell |= {d: _mean(means[key].get(d)) for d in QUALITY_DIMENSIONS}
        cells.append(cell | {"conversations": len(traces[key])})
    return sorted(cells, key=lambda c: (c["model"], c["case"], c["run"]))


def _mean(values: list[int] | None) -> float | None:
    return statistics.fmean(values) if values else None


def _cells_table(cells: list[dict]) -> dict:
    columns = [
        ("model", "Model", "text"),
        ("case", "Task or case", "text"),
        ("run", "Run", "int"),
        ("temperature", "T", "num"),
        ("conversations", "Scored conversations", "int"),
        ("tss", "TSS", "num"),
        ("ac", "AC", "num"),
        ("divergence_point", "Divergence point", "num"),
        ("correct_rate", "Outcome checks passed", "pct"),
        ("task_completion", "Task completion (clinicians)", "num"),
        ("clinical_safety", "Clinical safety (clinicians)", "num"),
    ]
    note = (
        "The run's consistency metrics of each cell beside the mean of the clinicians' current "
        "scores on its conversations; only cells with clinician scores."
    )
    return table("Cells: consistency and clinician-judged quality", columns, cells, note)


def _correlations_table(cells: list[dict]) -> dict:
    rows = []
    scopes = [("all models", cells)] + [
        (model, [c for c in cells if c["model"] == model])
        for model in sorted({c["model"] for c in cells})
    ]
    for scope, members in scopes:
        for metric, metric_label in CELL_METRICS.items():
            for dimension in QUALITY_DIMENSIONS:
                pairs = [
                    (c[metric], c[dimension])
                    for c in members
                    if c[metric] is not None and c[dimension] is not None
                ]
                if pairs:
                    rows.append(
                        {
                            "scope": scope,
                            "metric": metric_label,
                            "dimension": dimension.replace("_", " "),
                            **correlation(pairs),
                        }
                    )
    columns = [
        ("scope", "Models", "text"),
        ("metric", "Consistency", "text"),
        ("dimension", "Clinicians' mean", "text"),
        ("n", "Cells", "int"),
        ("pearson", "Pearson r", "est"),
        ("pearson_p", "p", "p"),
        ("spearman", "Spearman ρ", "est"),
        ("spearman_p", "p", "p"),
    ]
    note = (
        "Across cells: does a consistent agent also do the task well and safely, as clinicians "
        f"judge it? Paired bootstrap 95% CIs resampling cells ({LIVE_RESAMPLES} resamples, "
        "scipy); p-values from scipy.stats.pearsonr and spearmanr."
    )
    empty = (
        "No cell has both a consistency figure and clinicians' scores on task completion or "
        "clinical safety yet: TSS and AC need 2 or more repetitions per cell, and those two "
        "dimensions are scored by the operations and the clinical track."
    )
    return table("Consistency vs clinicians: correlations", columns, rows, note, empty)


def correlation(pairs: Sequence[tuple[float, float]], seed: int = 0) -> dict:
    """Pearson and Spearman with paired bootstrap CIs (scipy), or the reason there are none."""
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    out: dict[str, Any] = {"n": len(x), "pearson_p": None, "spearman_p": None}
    reason = None
    if len(x) < 3:
        reason = "fewer than 3 cells"
    elif np.ptp(x) == 0 or np.ptp(y) == 0:
        reason = "no variation on one side"
    if reason:
        none = {"value": None, "ci": None, "n": len(x), "reason": reason}
        return out | {"pearson": none, "spearman": dict(none)}
    pearson, spearman = stats.pearsonr(x, y), stats.spearmanr(x, y)
    out |= {"pearson_p": float(pearson.pvalue), "spearman_p": float(spearman.pvalue)}
    for name, value, statistic in (
        ("pearson", pearson.statistic, _pearson),
        ("spearman", spearman.statistic, _spearman),
    ):
        out[name] = {"value": float(value), "ci": _paired_ci(x, y, statistic, seed), "n": len(x)}
        out[name]["reason"] = None if out[name]["ci"] else "no interval: too few distinct cells"
    return out


def _pearson(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    dx = x - x.mean(axis=axis, keepdims=True)
    dy = y - y.mean(axis=axis, keepdims=True)
    spread = np.sqrt((dx**2).sum(axis=axis) * (dy**2).sum(axis=axis))
    with np.errstate(all="ignore"):
        return np.where(spread > 1e-12, (dx * dy).sum(axis=axis) / spread, np.nan)


def _spearman(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return _pearson(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis=axis)


def _paired_ci(x, y, statistic, seed: int) -> list[float] | None:
    """Percentile interval of a paired bootstrap (scipy) resampling cells. A resample can
    draw cells that do not vary, where a correlation is undefined; those are left out, as in
    `agreement`, unless they are most of them."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (x, y),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=LIVE_RESAMPLES,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    distribution = result.bootstrap_distribution
    defined = distribution[np.isfinite(distribution)]
    if len(defined) < len(distribution) / 2:
        return None
    low, high = np.quantile(defined, [0.025, 0.975])
    return [float(low), float(high)]


def _outcomes_table(ds: Dataset) -> dict:
    """The automatic outcome check of each conversation against the clinicians' verdict (their
    mean rounded half up passes at ≥ 3), per dimension, over all models and per model."""
    per_item = _item_scores(ds, QUALITY_DIMENSIONS)
    rows = []
    for dimension in QUALITY_DIMENSIONS:
        for scope in ["all models", *ds.models]:
            pairs = [
                (ds.conversations[t].correct, half_up(statistics.fmean(s)) >= 3)
                for t, s in per_item[dimension].items()
                if t in ds.conversations
                and ds.conversations[t].correct is not None
                and scope in ("all models", ds.conversations[t].model)
            ]
            if pairs:
                rows.append(
                    {"dimension": ds.label(dimension), "scope": scope, **_two_by_two(pairs)}
                )
    columns = [
        ("dimension", "Clinicians on", "text"),
        ("scope", "Models", "text"),
        ("n", "Conversations", "int"),
        ("both_pass", "Both pass", "int"),
        ("check_only", "Check passes, clinicians fail", "int"),
        ("clinicians_only", "Clinicians pass, check fails", "int"),
        ("both_fail", "Both fail", "int"),
        ("agreement", "Agreement", "est"),
        ("kappa", "Cohen's κ", "est"),
    ]
    note = (
        "Automatic outcome checks (the conversation's correctness criteria) against the "
        "clinicians' mean score rounded half up, passing at ≥ 3. Agreement with a Wilson 95% "
        "interval; Cohen's kappa (statsmodels) on the 2 × 2 table."
    )
    empty = "No conversation has both an automatic outcome check and clinicians' scores yet."
    return table("Automatic outcome checks vs clinicians", columns, rows, note, empty)


def _two_by_two(pairs: list[tuple[bool, bool]]) -> dict:
    counts = Counter(pairs)
    n = len(pairs)
    agree = counts[(True, True)] + counts[(False, False)]
    out = {
        "n": n,
        "both_pass": counts[(True, True)],
        "check_only": counts[(True, False)],
        "clinicians_only": counts[(False, True)],
        "both_fail": counts[(False, False)],
        "kappa": {"value": None, "ci": None, "n": n, "reason": "no conversation"},
    }
    if not n:
        out["agreement"] = {"value": None, "ci": None, "n": 0, "reason": "no conversation"}
        return out
    low, high = proportion_confint(agree, n, method="wilson")
    out["agreement"] = {"value": agree / n, "ci": [float(low), float(high)], "n": n}
    grid = np.array(
        [
            [counts[(True, True)], counts[(True, False)]],
            [counts[(False, True)], counts[(False, False)]],
        ]
    )
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kappa = float(cohens_kappa(grid, return_results=False))
    defined = math.isfinite(kappa)
    out["kappa"] = {
        "value": kappa if defined else None,
        "ci": None,
        "n": n,
        "reason": None if defined else "no variation: one side gave one verdict throughout",
    }
    return out


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
            pilot=_int(str(query.get("pilot") or "")),
            items=_numbers(query.get("items"), default.items, 2, 5000),
            overlaps=_numbers(query.get("overlaps"), default.overlaps, 2, 20),
            target=_target(query.get("target"), default.target),
            panel=_int(str(query.get("panel") or "")),
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
    found = sorted({int(p) for p in parts if p.strip().isdigit() and low <= int(p) <= high})
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
    return f"{study['name']} ({_kind(study['kind'])}, {state})"


def plan_data(request: PlanRequest, current: str | None = None) -> dict:
    """`agreement.plan_study` on the pilot's scores, as plain data; cached like the pages."""
    base = f"dashboards:v{DATA_VERSION}:plan:{request.digest()}"
    return _cached(base, current or stamp(), lambda: _plan(request))


def _plan(request: PlanRequest) -> dict:
    ds = load(Filters(study=request.pilot, panel=request.panel))
    plan = agreement.plan_study(ds.ratings(), request.items, request.overlaps, request.target)
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
        "summary": _summary(ds),
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


def _designs(rows: list[dict], plan: agreement.PlanResult) -> list[dict]:
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


# --- a whole study as one zip ----------------------------------------------------------------------


BUNDLE_README = """Study bundle: {name} ({kind}, study id {pk})
Written {when} by PatientAgentBench. Clinicians appear by pseudonymous code only.

scores.csv
    Every clinician's current score: one row per item x clinician x dimension (the columns
    of the study's CSV export). Not applicable is an empty score with not_applicable = 1.

agreement.json
    Every agreement figure per dimension for this study, jury vs clinicians and among
    clinicians, as computed by annotation.agreement: each figure's value, its bootstrap
    95% interval [low, high] (resampling items), and the items it stands on.

tables/
{tables}

figures/
    Interactive plotly figures; open one in a browser (it loads plotly.min.js beside it,
    so keep the folder together). Each chart's camera button saves a PNG.
{figures}

Intervals: bootstrap 95% CIs from {resamples} resamples of the items ({breakdown} in
breakdowns). Means compared with the jury are rounded half up (2.5 -> 3). Jury: {jury}.
"""


def study_bundle(study: Study) -> bytes:
    """The study's scores, agreement tables (CSV), figures (HTML) and a README, in one zip."""
    current = stamp()
    filters = Filters(study=study.pk, breakdown="model")
    pages = {page: page_data(page, filters, current) for page in LIVE_PAGES}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        scores = io.StringIO()
        write_csv(study, scores)
        bundle.writestr("scores.csv", scores.getvalue())
        ds = load(Filters(study=study.pk))
        result = _agree(ds.ratings(), ds.filters.margin)
        bundle.writestr("agreement.json", json.dumps(result, indent=2))
        tables, figures = _bundle_files(bundle, pages)
        bundle.writestr("figures/plotly.min.js", get_plotlyjs())
        jury = pages["jury"]["summary"]["jury"] or "none (no verdicts on these conversations)"
        readme = BUNDLE_README.format(
            name=study.name,
            kind=_kind(study.kind),
            pk=study.pk,
            when=timezone.now().strftime("%Y-%m-%d %H:%M %Z"),
            tables="\n".join(tables),
            figures="\n".join(figures),
            resamples=LIVE_RESAMPLES,
            breakdown=BREAKDOWN_RESAMPLES,
            jury=jury,
        )
        bundle.writestr("README.txt", readme)
    return buffer.getvalue()


def _bundle_files(bundle: zipfile.ZipFile, pages: dict[str, dict]) -> tuple[list, list]:
    tables, figures = [], []
    for page, data in pages.items():
        for name, data_table in data["tables"].items():
            out = io.StringIO()
            write_table_csv(data_table, out)
            path = f"tables/{page}-{name}.csv"
            bundle.writestr(path, out.getvalue())
            tables.append(_readme_entry(path[7:], data_table["title"], data_table["note"]))
        for name, data_figure in data["figures"].items():
            path = f"figures/{page}-{name}.html"
            fig = pio.from_json(data_figure["json"])
            document = fig.to_html(
                full_html=True,
                include_plotlyjs="plotly.min.js",
                config=figure_config(f"{page}-{name}"),
            )
            bundle.writestr(path, document)
            figures.append(_readme_entry(path[8:], data_figure["title"], ""))
    return tables, figures


def _readme_entry(path: str, title: str, note: str) -> str:
    text = f"    {path}\n        {title}."
    if note:
        text += " " + note
    return _wrap(text)


def _wrap(text: str, width: int = 92) -> str:
    first, _, rest = text.partition("\n")
    body = textwrap.fill(rest.strip(), width, initial_indent=" " * 8, subsequent_indent=" " * 8)
    return first + ("\n" + body if rest else "")


COMPUTE: dict[str, Callable[[Dataset], dict]] = {
    "jury": jury_page,
    "raters": raters_page,
    "quality": quality_page,
}
