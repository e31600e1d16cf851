"""Reading verdicts back, for the jury's pages, its commands and its exports.

The stored rows are one judge's answer on one dimension of one conversation in one
repetition. Everything a reader needs is built from them here, with the functions that do
the arithmetic (`aggregate`, `consistency`), so a page, a command and an export can never
disagree:

- per conversation × repetition × dimension, the panel's verdict (`aggregate.panel_score`
  with the panel's aggregation): score, spread, share of judges agreeing on pass, and each
  judge's own answer; per conversation × repetition the weighted aggregate and how many
  answers were left out, by status;
- rows for the leaderboard and its breakdowns (model from `Trace.model_name`, case
  attributes from `Task.attributes`);
- test-retest records for `consistency.retest`, and the two sides of
  `consistency.compare_versions` (two panels, or two rubric/prompt versions of one panel).

Which verdicts count: by default a panel's current versions, that is the panel's rubric
version and each judge's current prompt version, so editing a judge's prompt starts a fresh
set instead of mixing two texts. Imported panels hold one published set whose rubric was not
ours (`IMPORTED_VERSION`), so no version filter applies to them.

Only `ok` answers are numbers (DESIGN §5); a parse failure, a refusal, a provider error or
not applicable is left out and counted, never scored and never a pass.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, Max, Q, QuerySet, Sum

from jury.models import JudgeQualification, Panel, Verdict
from jury.pure import aggregate, validity
from jury.pure.aggregate import EXCLUDED_STATUSES, PanelScore, WeightedScore
from jury.pure.consistency import compare_versions, retest
from patientagentbench.cache import memo
from patientagentbench.cases.attribute_labels import banded
from patientagentbench.models import ModelConfig, Run, Trace
from ratings.rating import NOT_APPLICABLE, NOT_APPLICABLE_LABEL
from ratings.rubric import Rubric, cached_rubric
from ratings.scale import PASS_THRESHOLD

IMPORTED_VERSION = "published"  # rubric and prompt version of verdicts imported from a file
BREAKDOWN_RESAMPLES = 1000  # a breakdown has many small groups; fewer resamples keep it quick
CACHE_SECONDS = 600

ANSWER_FIELDS = (
    "trace_id",
    "judge__name",
    "judge__model__provider",
    "repetition",
    "dimension",
    "status",
    "score",
    "rationale",
    "raw",
    "attempts",
    "attempt_log",
    "rubric_version",
    "prompt_version",
    "prompt_text_version",
)


# --- which verdicts ------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One set of verdicts: a panel at a rubric version and a prompt version (None: the
    panel's current ones)."""

    panel: Panel
    rubric_version: str | None = None
    prompt_version: str | None = None

    @property
    def label(self) -> str:
        if self.rubric_version is None and self.prompt_version is None:
            return f"{self.panel.name} (current versions)"
        return (
            f"{self.panel.name} · rubric v{self.rubric_version or 'current'}"
            f" · prompt v{self.prompt_version or 'current'}"
        )


def verdicts_of(
    panel: Panel,
    *,
    run: Run | int | None = None,
    trace_ids: Iterable[int] | None = None,
    rubric_version: str | None = None,
    prompt_version: str | None = None,
) -> QuerySet:
    """A panel's verdicts, at its current versions unless versions are named."""
    verdicts = Verdict.objects.filter(panel=panel)
    if run is not None:
        verdicts = verdicts.filter(trace__run=run)
    if trace_ids is not None:
        verdicts = verdicts.filter(trace_id__in=list(trace_ids))
    if rubric_version is not None:
        verdicts = verdicts.filter(rubric_version=rubric_version)
    elif not panel.imported:
        verdicts = verdicts.filter(rubric_version=panel.rubric_version)
    if prompt_version is not None:
        verdicts = verdicts.filter(prompt_version=prompt_version)
    elif not panel.imported:
        verdicts = verdicts.filter(prompt_version=F("judge__prompt_version"))
    return verdicts


def source_verdicts(source: Source, **filters: Any) -> QuerySet:
    return verdicts_of(
        source.panel,
        rubric_version=source.rubric_version,
        prompt_version=source.prompt_version,
        **filters,
    )


def available_sources(panels: Iterable[Panel] | None = None) -> list[Source]:
    """Every (panel, rubric version, prompt version) that holds verdicts, for comparisons."""
    panels = {p.pk: p for p in (panels if panels is not None else Panel.objects.all())}
    triples = (
        Verdict.objects.filter(panel_id__in=list(panels))
        .values_list("panel_id", "rubric_version", "prompt_version")
        .distinct()
        .order_by("panel_id", "rubric_version", "prompt_version")
    )
    return [Source(panels[p], r, v) for p, r, v in triples]


def rubric_of(panel: Panel) -> Rubric:
    return cached_rubric(panel.rubric_name, panel.rubric_version)


# --- one conversation's verdicts ---------------------------------------------------------------


@dataclass(frozen=True)
class JudgeAnswer:
    judge: str
    simulated: bool
    repetition: int
    status: str
    score: int | None
    rationale: str
    raw: str
    attempts: int
    rubric_version: str
    prompt_version: str
    threshold: int = PASS_THRESHOLD  # the pass mark of the panel's rubric version
    attempt_log: tuple[dict, ...] = ()  # every attempt's raw answer and failure, for researchers
    prompt_text_version: str = ""  # the prompt text asked with ("2", "2-one-call"; "" unknown)

    @property
    def status_label(self) -> str:
        return STATUS_WORDS.get(self.status, self.status)

    @property
    def passed(self) -> bool | None:
        """A judge's own pass; None unless it gave a score (a parse failure never passes)."""
        return None if self.score is None else self.score >= self.threshold


@dataclass(frozen=True)
class DimensionVerdict:
    dimension: str
    label: str
    weight: float | None
    panel: PanelScore
    answers: tuple[JudgeAnswer, ...]

    @property
    def left_out(self) -> int:
        return sum(self.panel.n_excluded.values())

    @property
    def left_out_text(self) -> str:
        return left_out_text(self.panel.n_excluded)


@dataclass(frozen=True)
class ConversationVerdict:
    trace_id: int
    case: str
    model: str
    attributes: dict
    repetition: int  # the jury's reading (0..K-1), not the agent's run repetition
    dimensions: tuple[DimensionVerdict, ...]
    aggregate: WeightedScore
    left_out: dict[str, int] = field(default_factory=dict)  # status -> answers left out
    agent_repetition: int = 0  # which of the run's repetitions this conversation is

    @property
    def left_out_text(self) -> str:
        return left_out_text(self.left_out)

    @property
    def left_out_short(self) -> str:
        """'2 N/A · 1 unparseable': for a table cell."""
        short = {
            NOT_APPLICABLE: NOT_APPLICABLE_LABEL,
            "unparseable": "unparseable",
            "truncated": "truncated",
            "na_not_allowed": f"{NOT_APPLICABLE_LABEL} not allowed",
            "error": "error",
        }
        return " · ".join(f"{n} {short.get(s, s)}" for s, n in self.left_out.items() if n)

    @property
    def aggregate_note(self) -> str:
        """Which weighted dimensions the aggregate stands on."""
        used, missing = len(self.aggregate.used), len(self.aggregate.left_out)
        note = f"{used} of {used + missing} dimensions"
        return note + (f"; no score on {', '.join(self.aggregate.left_out)}" if missing else "")

    def dimension(self, key: str) -> DimensionVerdict | None:
        return next((d for d in self.dimensions if d.dimension == key), None)


def left_out_text(counts: Mapping[str, int]) -> str:
    """'2 left out: 1 unparseable, 1 provider error', or '' when none was."""
    parts = [f"{n} {STATUS_WORDS.get(s, s)}" for s, n in counts.items() if n and s != "ok"]
    total = sum(n for s, n in counts.items() if s != "ok")
    return f"{total} left out: {', '.join(parts)}" if total else ""


STATUS_WORDS = {
    "ok": "scored",
    "not_applicable": "not applicable",
    "unparseable": "unparseable",
    "truncated": "truncated",
    "na_not_allowed": "N/A where not allowed",
    "error": "provider error",
}


def conversation_verdicts(panel: Panel, verdicts: QuerySet | None = None, **filters: Any):
    """Per conversation × repetition, ordered by conversation, then repetition."""
    verdicts = verdicts if verdicts is not None else verdicts_of(panel, **filters)
    rows = list(verdicts.values(*ANSWER_FIELDS))
    traces = _trace_info({row["trace_id"] for row in rows})
    grouped: dict[tuple[int, int], dict[str, list[JudgeAnswer]]] = defaultdict(
        lambda: defaultdict(list)
    )
    rubric = rubric_of(panel)
    for row in rows:
        grouped[(row["trace_id"], row["repetition"])][row["dimension"]].append(
            _answer(row, rubric.pass_threshold)
        )
    return [
        _conversation(trace_id, repetition, per_dimension, traces[trace_id], rubric, panel)
        for (trace_id, repetition), per_dimension in sorted(grouped.items())
    ]


def _answer(row: Mapping[str, Any], threshold: int) -> JudgeAnswer:
    return JudgeAnswer(
        judge=row["judge__name"],
        simulated=row["judge__model__provider"] == ModelConfig.Provider.SIMULATED,
        repetition=row["repetition"],
        status=row["status"],
        score=row["score"] if row["status"] == Verdict.Status.OK else None,
        rationale=row["rationale"],
        raw=row["raw"],
        attempts=row["attempts"],
        rubric_version=row["rubric_version"],
        prompt_version=row["prompt_version"],
        threshold=threshold,
        attempt_log=tuple(row.get("attempt_log") or ()),
        prompt_text_version=row.get("prompt_text_version") or "",
    )


def _conversation(trace_id, repetition, per_dimension, trace, rubric: Rubric, panel: Panel):
    dimensions = tuple(
        DimensionVerdict(
            dimension=key,
            label=_label(rubric, key),
            weight=rubric.weights.get(key),
            panel=aggregate.panel_score(answers, panel.aggregation, rubric.scale),
            answers=tuple(sorted(answers, key=lambda a: a.judge)),
        )
        for key, answers in sorted(per_dimension.items(), key=lambda kv: _order(rubric, kv[0]))
    )
    left_out: Counter[str] = Counter(dict.fromkeys(EXCLUDED_STATUSES, 0))
    for verdict in dimensions:
        left_out.update(verdict.panel.n_excluded)
    return ConversationVerdict(
        trace_id=trace_id,
        case=trace["case"],
        model=trace["model"],
        attributes=trace["attributes"],
        repetition=repetition,
        dimensions=dimensions,
        aggregate=aggregate.weighted_detail(
            {d.dimension: d.panel.score for d in dimensions}, rubric.weights
        ),
        left_out=dict(left_out),
        agent_repetition=trace["repetition"],
    )


def _trace_info(trace_ids: set[int]) -> dict[int, dict]:
    fields = (
        "pk",
        "model_name",
        "repetition",
        "task__task_id",
        "task__category",
        "task__attributes",
    )
    return {
        row["pk"]: {
            "model": row["model_name"],
            "case": row["task__task_id"],
            "repetition": row["repetition"],
            "attributes": case_attributes(row["task__attributes"], row["task__category"]),
        }
        for row in Trace.objects.filter(pk__in=trace_ids).values(*fields)
    }


def case_attributes(attributes: Any, category: str) -> dict:
    """The case's attributes, nested ones flattened one level (traits.anxiety); a task
    without attributes (office-19) still has its category. The dashboards read cases the same
    way, through this function."""
    flat: dict[str, Any] = {"category": category} if category else {}
    for key, value in (attributes or {}).items():
        if isinstance(value, Mapping):
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def _label(rubric: Rubric, key: str) -> str:
    try:
        return rubric.dimension(key).label
    except KeyError:
        return key.replace("_", " ")


def _order(rubric: Rubric, key: str) -> tuple[int, str]:
    keys = [d.key for d in rubric.dimensions]
    return (keys.index(key) if key in keys else len(keys), key)


def left_out_total(conversations: Iterable[ConversationVerdict]) -> dict[str, int]:
    total: Counter[str] = Counter(dict.fromkeys(EXCLUDED_STATUSES, 0))
    for conversation in conversations:
        total.update(conversation.left_out)
    return dict(total)


# --- the leaderboard and its breakdowns --------------------------------------------------------


def leaderboard_rows(conversations: Iterable[ConversationVerdict]) -> list[dict]:
    """One row per conversation × dimension × repetition, as `aggregate.leaderboard` reads
    them (it averages repetitions within a conversation)."""
    return [
        {
            "model": c.model,
            "conversation": c.trace_id,
            "dimension": d.dimension,
            "score": d.panel.score,
            "passed": d.panel.passed,
            "attributes": banded(c.attributes),
        }
        for c in conversations
        for d in c.dimensions
    ]


@dataclass(frozen=True)
class Leaderboard:
    rows: list  # aggregate.ModelRow, best aggregate first
    dimensions: list[tuple[str, str]]  # (key, label) in rubric order
    conversations: int
    left_out: dict[str, int]
    attributes: list[str]  # case attributes a breakdown can use


def run_leaderboard(panel: Panel, run: Run | int, seed: int = 0) -> Leaderboard:
    """The leaderboard PatientAgentBench publishes, for a panel's verdicts on one run;
    cached until a verdict is added or changed."""

    def compute() -> Leaderboard:
        conversations = conversation_verdicts(panel, run=run)
        rubric = rubric_of(panel)
        return Leaderboard(
            rows=aggregate.leaderboard(leaderboard_rows(conversations), rubric.weights, seed),
            dimensions=[
                (d.key, d.label)
                for d in rubric.scored
                if any(c.dimension(d.key) for c in conversations)
            ],
            conversations=len({c.trace_id for c in conversations}),
            left_out=left_out_total(conversations),
            attributes=breakdown_attributes(conversations),
        )

    key, stamp = _cache_key("leaderboard", panel, run, seed)
    return memo(key, stamp, compute, timeout=CACHE_SECONDS)


def breakdown_attributes(conversations: Iterable[ConversationVerdict]) -> list[str]:
    """Attributes with at least two values across these conversations, common ones first."""
    values: dict[str, set[str]] = defaultdict(set)
    for conversation in conversations:
        # Ages in bands and no separate age group (the same thing), as the dashboards read them.
        for key, value in banded(conversation.attributes).items():
            items = value if isinstance(value, list | tuple) else [value]
            values[key].update(str(v) for v in items)
    preferred = ["category", "subtask", "severity", "personality", "care_preference"]
    usable = [k for k, v in values.items() if len(v) >= 2]
    return sorted(usable, key=lambda k: (0, preferred.index(k), k) if k in preferred else (1, 0, k))


def run_breakdown(panel: Panel, run: Run | int, attribute: str, seed: int = 0) -> dict:
    """The leaderboard per value of one case attribute (a list counts under each value)."""

    def compute() -> dict:
        rows = leaderboard_rows(conversation_verdicts(panel, run=run))
        return aggregate.breakdown(
            rows, attribute, rubric_of(panel).weights, seed, n_resamples=BREAKDOWN_RESAMPLES
        )

    key, stamp = _cache_key(f"breakdown:{attribute}", panel, run, seed)
    return memo(key, stamp, compute, timeout=CACHE_SECONDS)


def _cache_key(kind: str, panel: Panel, run: Run | int, seed: int) -> tuple[str, str]:
    """The page's key, and a stamp that changes whenever a verdict of this panel on this run
    is added or rescored."""
    state = verdicts_of(panel, run=run).aggregate(
        n=Count("pk"),
        last=Max("pk"),
        ok=_ok_count(),
        total=Sum("score"),
        # Row ids repeat across databases (tests, a fresh demo); creation times do not.
        newest=Max("created_at"),
    )
    # v2: ages in bands and intervals of zero width withheld; pages cached before are stale.
    key = f"jury:v2:{kind}:{panel.pk}:{getattr(run, 'pk', run)}:{seed}:{panel.aggregation}"
    return hashlib.sha256(key.encode()).hexdigest(), hashlib.sha256(
        repr(state).encode()
    ).hexdigest()


def _ok_count():
    return Count("pk", filter=Q(status=Verdict.Status.OK))


# --- judge consistency ---------------------------------------------------------------------------


def retest_records(panel: Panel, **filters: Any) -> list[dict]:
    """Per judge answer: the records `consistency.retest` reads."""
    return [
        {
            "judge": row["judge__name"],
            "conversation": row["trace_id"],
            "dimension": row["dimension"],
            "repetition": row["repetition"],
            "status": row["status"],
            "score": row["score"] if row["status"] == Verdict.Status.OK else None,
        }
        for row in verdicts_of(panel, **filters).values(
            "judge__name", "trace_id", "dimension", "repetition", "status", "score"
        )
    ]


def panel_retest(panel: Panel, **filters: Any) -> list:
    return retest(retest_records(panel, **filters), scale=rubric_of(panel).scale)


def judge_records(source: Source, **filters: Any) -> list[dict]:
    """Each judge's first repetition per conversation and dimension (a version comparison
    asks what changed with the text, not between repetitions)."""
    return [
        {
            "conversation": row["trace_id"],
            "dimension": row["dimension"],
            "judge": row["judge__name"],
            "status": row["status"],
            "score": row["score"] if row["status"] == Verdict.Status.OK else None,
        }
        for row in source_verdicts(source, **filters)
        .filter(repetition=0)
        .values("trace_id", "dimension", "judge__name", "status", "score")
    ]


def panel_records(source: Source, **filters: Any) -> list[dict]:
    """The panel's verdict per conversation and dimension, repetitions combined as the
    leaderboard combines them: mean score, pass by majority of the repetitions."""
    conversations = conversation_verdicts(source.panel, source_verdicts(source, **filters))
    per_key: dict[tuple[int, str], list[PanelScore]] = defaultdict(list)
    for conversation in conversations:
        for verdict in conversation.dimensions:
            per_key[(conversation.trace_id, verdict.dimension)].append(verdict.panel)
    return [
        _panel_record(trace_id, dimension, scores)
        for (trace_id, dimension), scores in per_key.items()
    ]


def _panel_record(trace_id: int, dimension: str, scores: list[PanelScore]) -> dict:
    combined = aggregate.combine_repetitions(scores)
    return {
        "conversation": trace_id,
        "dimension": dimension,
        "judge": "",
        "status": combined.status,
        "score": combined.score,
        "passed": combined.passed,
    }


def version_comparison(before: Source, after: Source, **filters: Any):
    """Two rubric/prompt versions of one panel compare judge by judge; two panels compare
    their panel verdicts. Only conversations both sides scored count."""
    records = panel_records if before.panel.pk != after.panel.pk else judge_records
    threshold = rubric_of(after.panel).pass_threshold
    return compare_versions(records(before, **filters), records(after, **filters), threshold)


# --- judge validity -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Validity:
    """What the judge page shows beside consistency (jury.pure.validity)."""

    separations: list  # validity.Separation, each judge's dimensions then the panel's
    warnings: dict[tuple[str, str], str]  # (judge, dimension) -> the red warning
    summary: dict[str, dict[str, int]]  # judge -> counts (validity.summary)
    qualifications: list  # JudgeQualification: agreement with a round's reference scores
    n_checked: int  # conversations with an outcome check, passed or failed
    n_unchecked: int  # conversations scored but never checked


def _outcomes(conversations: Iterable[int]) -> dict[int, bool | None]:
    """conversation -> passed its automatic outcome checks (None: not checked)."""
    return dict(Trace.objects.filter(pk__in=list(conversations)).values_list("pk", "correct"))


def _panel_verdict_records(panel: Panel, **filters: Any) -> list[dict]:
    return [{**row, "judge": validity.PANEL} for row in panel_records(Source(panel), **filters)]


def jury_validity(panel: Panel, judge: Any = None) -> validity.Standing:
    """The validity half of a jury's standing (jury.qualification.standing): the panel
    verdict's separation per dimension, or one judge's, over every conversation it scored."""
    if judge is None:
        records = _panel_verdict_records(panel)
    else:
        records = [r for r in retest_records(panel) if r["judge"] == judge.name]
    outcomes = _outcomes({r["conversation"] for r in records})
    return validity.standing(validity.separations(records, outcomes))


def panel_validity(panel: Panel, retest_rows: Iterable[Any] = (), **filters: Any) -> Validity:
    """Each judge's (and the panel verdict's) separation of passing from failing
    conversations, and its calibration rounds' agreement with the reference scores."""
    records = retest_records(panel, **filters)
    panel_rows = _panel_verdict_records(panel, **filters)
    conversations = {r["conversation"] for r in records}
    outcomes = _outcomes(conversations)
    separations = validity.separations(records, outcomes) + validity.separations(
        panel_rows, outcomes
    )
    exact = {(r.judge, r.dimension): r.exact for r in retest_rows}
    warnings = {
        (row.judge, row.dimension): text
        for row in separations
        if (text := validity.warning(row, exact.get((row.judge, row.dimension))))
    }
    return Validity(
        separations=separations,
        warnings=warnings,
        summary=validity.summary(separations),
        qualifications=list(
            JudgeQualification.objects.filter(panel=panel).select_related("judge", "round")
        ),
        n_checked=sum(outcomes.get(c) is not None for c in conversations),
        n_unchecked=sum(outcomes.get(c) is None for c in conversations),
    )
