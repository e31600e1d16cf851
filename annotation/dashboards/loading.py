"""Clinicians' current scores and a jury's verdicts read from the database into a `Dataset` of
plain records (`ratings.rating.Rating`s), plus the filter form's choices. What the jury is here:
a panel's verdict per conversation and dimension, its repetitions combined as
`jury.verdicts.panel_records` combines them (the mean of the panel scores), then rounded half up
to a 1–5 score; or one judge alone, the same way. A verdict that is not a number stays what it
is (not applicable, unparseable, truncated, N/A where not allowed, error) and is left out
and counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db.models import Count, Q

from annotation.dashboards.filters import Filters
from annotation.models import Study, Submission
from annotation.pure import agreement
from annotation.pure.agreement import half_up
from jury.models import Judge, Panel, Verdict
from jury.pure import aggregate
from jury.verdicts import case_attributes, verdicts_of
from patientagentbench.cases.attribute_labels import (
    OptionGroup,
    attribute_label,
    banded,
    option_groups,
    ordered_keys,
)
from patientagentbench.models import Run, Task, Trace
from ratings.rating import Rating, ratings_of
from ratings.rubric import REALISM, Rubric, cached_rubric

JURY_RATER = "jury"
TRACK_ORDER = ("clinical", "operations", REALISM)


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
class Jury:
    """Jury scores per (trace, dimension): (rounded score or None, status, unrounded mean)."""

    label: str
    scores: dict[tuple[int, str], tuple[int | None, str, float | None]]


@dataclass
class Dataset:
    filters: Filters
    rubric: Rubric
    scores: list[Rating]  # clinicians' current scores, item = the trace id as text
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

    def conversation_of(self, rating: Rating) -> Conversation | None:
        return self.conversations.get(int(rating.item))

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
    scores: Iterable[Rating], jury: Jury | None, traces: set[int] | None = None
) -> list[Rating]:
    wanted = None if traces is None else {str(t) for t in traces}
    latest: dict[tuple, Rating] = {}
    for score in scores:  # in submission order: a later study's score replaces an earlier one
        if wanted is None or score.item in wanted:
            latest[(score.item, score.rater, score.dimension)] = score
    ratings = list(latest.values())
    scored = {s.item for s in ratings}
    for (trace, dimension), (value, status, mean) in (jury.scores if jury else {}).items():
        if str(trace) in scored:
            # The panel's mean itself: agreement meets whole scores by the tie rule and keeps
            # the mean for MAE, bias and correlations (rounding first biased them).
            score = None if value is None else mean
            ratings.append(Rating(str(trace), JURY_RATER, dimension, score, status, agreement.JURY))
    return ratings


def load(filters: Filters) -> Dataset:
    rubric = _rubric(filters)
    submissions, elsewhere = _of_rubric(_submissions(filters), rubric)
    conversations = _conversations(submissions, filters.attribute)
    scores = _scores(submissions, conversations)
    studies = {
        row["pk"]: row
        for row in Study.objects.filter(pk__in={s.study for s in scores}).values(
            "pk", "name", "kind", "status", "created_at"
        )
    }
    dataset = Dataset(filters, rubric, scores, conversations, studies)
    if elsewhere:
        dataset.warnings.append(
            f"{elsewhere} stud{'y is' if elsewhere == 1 else 'ies are'} on another rubric and "
            f"left out: scores on different rubrics are never pooled; choose a study to see it."
        )
    traces = sorted({int(s.item) for s in scores})
    dataset.panel = _panel(filters.panel, traces, rubric)
    if dataset.panel is not None and not _scores_rubric(dataset.panel, rubric):
        dataset.warnings.append(
            f"Panel {dataset.panel.name} scores {dataset.panel.rubric_name} "
            f"v{dataset.panel.rubric_version}, these clinicians {rubric.name} v{rubric.version}: "
            "a panel is compared only with studies of its own rubric version."
        )
        dataset.panel = None
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


def _of_rubric(submissions, rubric: Rubric):
    """The submissions to studies on `rubric`, and how many studies on another were left out."""
    mine = Q(assignment__item__study__rubric_name=rubric.name) & Q(
        assignment__item__study__rubric_version=rubric.version
    )
    others = submissions.exclude(mine).values("assignment__item__study_id").distinct().order_by()
    return submissions.filter(mine), others.count()


def _scores_rubric(panel: Panel, rubric: Rubric) -> bool:
    return (panel.rubric_name, panel.rubric_version) == (rubric.name, rubric.version)


def _submissions(filters: Filters):
    submissions = Submission.objects.current()
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
        row[0]: Conversation(*row[:8], attributes=banded(case_attributes(row[8], row[9])))
        for row in rows
    }
    if attribute:
        key, _, value = attribute.partition("=")
        conversations = {
            pk: c for pk, c in conversations.items() if value in c.values_of(key.strip())
        }
    return conversations


def _scores(submissions, conversations: Mapping[int, Conversation]) -> list[Rating]:
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
        expected = {d: (r or {}).get("score") for d, r in references.items()}
        scores += ratings_of(str(trace), code, given, study=study, at=at, references=expected)
    return scores


def _rubric(filters: Filters) -> Rubric:
    study = Study.objects.filter(pk=filters.study).values("rubric_name", "rubric_version").first()
    if study:
        return cached_rubric(study["rubric_name"], study["rubric_version"])
    return cached_rubric()


def _panel(chosen: int | None, traces: Sequence[int], rubric: Rubric) -> Panel | None:
    """The panel asked for; unasked, the busiest on these conversations of the same rubric."""
    if chosen:
        return Panel.objects.filter(pk=chosen).first()
    busiest = (
        Verdict.objects.filter(
            trace_id__in=traces,
            panel__rubric_name=rubric.name,
            panel__rubric_version=rubric.version,
        )
        .values("panel")
        .annotate(n=Count("pk"))
        .order_by("-n", "panel")
        .first()
    )
    return Panel.objects.get(pk=busiest["panel"]) if busiest else None


def jury_scores(panel: Panel, traces: Sequence[int], judge: Judge | None = None) -> Jury:
    """The panel's verdict per conversation and dimension (or one judge's), repetitions
    combined by `jury.pure.aggregate.combine_repetitions` as every jury page combines them: (the
    mean rounded half up, for display, the status, the mean itself, which the figures use)."""
    verdicts = verdicts_of(panel).filter(trace_id__in=list(traces)).order_by()
    if judge is not None:
        verdicts = verdicts.filter(judge=judge)
    grouped: dict[tuple[int, str], dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for trace, dimension, repetition, status, score in verdicts.values_list(
        "trace_id", "dimension", "repetition", "status", "score"
    ):
        grouped[(trace, dimension)][repetition].append({"status": status, "score": score})
    scale = cached_rubric(panel.rubric_name, panel.rubric_version).scale
    scores = {}
    for key, repetitions in grouped.items():
        combined = aggregate.combine_repetitions(
            aggregate.panel_score(answers, panel.aggregation, scale)
            for answers in repetitions.values()
        )
        mean = combined.score
        scores[key] = (None if mean is None else half_up(mean), combined.status, mean)
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
        ("study", "Study or round", [(pk, f"{n} ({study_kind(k)})") for pk, n, k in studies]),
        (
            "run",
            "Run",
            [(r.pk, f"run {r.pk}" + (f" · {r.label}" if r.label else "")) for r in runs],
        ),
        ("model", "Model", [(m, m) for m in models]),
        ("attribute", "Case attribute", _attribute_groups()),
        ("panel", "Jury panel", [(pk, name) for pk, name in panels]),
        ("judge", "One judge as the jury", [(j.pk, j.name) for j in judges]),
    ]
    if page == "jury":
        selects.append(("breakdown", "Breakdown", _breakdown_options()))
    if page == "raters":
        rubric = _rubric(filters)
        dims = [(d.key, d.label) for d in rubric.dimensions]
        selects.append(("dimension", "Matrix dimension", dims))
        keys = ordered_keys(_attribute_values())
        selects.append(("realism_by", "Realism by", [(k, attribute_label(k)) for k in keys]))
    return [_select(name, label, options, chosen[name]) for name, label, options in selects]


def _select(name: str, label: str, options: list, chosen: str) -> dict:
    """A select's options, flat or (a list of OptionGroup) in optgroups."""

    def option(value, text) -> dict:
        return {"value": str(value), "label": text, "selected": str(value) == chosen}

    if options and isinstance(options[0], OptionGroup):
        groups = [
            {"label": g.label, "options": [option(o.value, o.label) for o in g.options]}
            for g in options
        ]
        return {"name": name, "label": label, "groups": groups, "options": []}
    return {"name": name, "label": label, "options": [option(v, text) for v, text in options]}


def study_kind(kind: str) -> str:
    """How a study kind reads on a page: "calibration round" or "study"."""
    return "calibration round" if kind == Study.Kind.CALIBRATION else "study"


def _attribute_values(limit: int = 30) -> dict[str, set[str]]:
    """Each flat attribute of the reviewed cases with its values (ages in bands), for the
    attributes with 2 to `limit` values: one value tells nothing, and more are free text."""
    tasks = Task.objects.filter(traces__review_items__isnull=False).distinct()
    values: dict[str, set[str]] = defaultdict(set)
    for attributes, category in tasks.values_list("attributes", "category"):
        for key, value in banded(case_attributes(attributes, category)).items():
            for one in value if isinstance(value, list | tuple) else [value]:
                if isinstance(one, str | int | float | bool):
                    values[key].add(str(one))
    return {key: found for key, found in values.items() if 2 <= len(found) <= limit}


def _attribute_groups() -> list[OptionGroup]:
    return option_groups(_attribute_values())


def _breakdown_options() -> list[tuple[str, str]]:
    keys = ordered_keys(_attribute_values())
    fixed = [("model", "by model"), ("judge", "by judge"), ("panel", "by panel")]
    return fixed + [(f"attr:{k}", f"by case {attribute_label(k).lower()}") for k in keys]
