"""Building studies and calibration rounds: which conversations (the stratified sampler or
filters), who scores them (load-balanced assignment with guaranteed overlap), in which order
(seeded per clinician), and their progress. Researchers' side only: this module may see
models and runs; nothing it returns is shown to a clinician.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from annotation import audit
from annotation.models import Assignment, Clinician, Item, Study
from annotation.pure.assignment import Rater, assign, reassign, review_order
from annotation.pure.sampling import (
    EXTREMES_FIRST,
    PER_MODEL,
    UNIFORM,
    Candidate,
    Sample,
    filter_candidates,
    random_share,
    stratified_sample,
)
from jury.verdicts import case_attributes
from patientagentbench.models import Run, Trace
from ratings.rubric import Rubric, RubricError
from ratings.rubric import cached_rubric as load_rubric

BREAKDOWN = ("category", "subtask", "severity", "personality", "complexity")


class StudyError(ValueError):
    pass


def reviewable(prefix: str = "") -> Q:
    """Which finished traces are conversations a clinician can review: those of scenario cases
    (launched or imported), and every trace of an imported run, case or not (a researcher
    imports transcripts to have them reviewed). A launched run of a task suite (office-19's
    one-prompt chores, no patient) is not: its outcome is checked automatically, and the
    rubric's questions are about a patient. `prefix` reaches traces from another model
    ("traces__" from a run)."""
    return Q(**{f"{prefix}status": Trace.Status.DONE}) & (
        Q(**{f"{prefix}task__case__isnull": False})
        | Q(**{f"{prefix}run__source": Run.Source.IMPORTED})
    )


def reviewable_traces(run_ids=None):
    """Finished conversations a clinician can read (see `reviewable`)."""
    traces = Trace.objects.filter(reviewable())
    if run_ids:
        traces = traces.filter(run_id__in=run_ids)
    return traces


def pool(kind: str, run_ids=None):
    """Finished conversations this kind of study may sample: a study never samples one used
    in a calibration round (clinicians have seen its reference), a round never one from a
    study (its reference would leak into the study's scores)."""
    other = Study.Kind.CALIBRATION if kind == Study.Kind.STUDY else Study.Kind.STUDY
    return reviewable_traces(run_ids).exclude(review_items__study__kind=other)


def candidates(traces) -> list[Candidate]:
    rows = traces.values_list("pk", "model_name", "task__attributes", "task__category", "correct")
    return [
        Candidate(
            key=str(pk),
            model=model,
            attributes=task_breakdown(attrs, category),
            scores={},  # jury verdicts join here once the jury has scored these conversations
            outcome_passed=correct,
        )
        for pk, model, attrs, category, correct in rows
    ]


def task_breakdown(attributes: dict | None, category: str = "") -> dict[str, str]:
    """A task's values of the sampler's breakdown, read as the dashboards read a case
    (`case_attributes`): a scenario case carries them all among its attributes; an imported
    task without a case may have none but its own category (the paper's release, a JSONL
    record), which then stands in for the attribute."""
    flat = case_attributes(attributes, category)
    return {k: str(flat[k]) for k in BREAKDOWN if flat.get(k) is not None}


def sample_for(
    traces,
    n: int,
    seed: int,
    models=None,
    attributes=None,
    outcome=None,
    design: str = EXTREMES_FIRST,
    rubric: Rubric | None = None,
) -> Sample:
    pool = filter_candidates(
        candidates(traces), models=models, attributes=attributes, outcome=outcome
    )
    if design in (UNIFORM, PER_MODEL):
        return random_share(pool, n, seed, per_model=design == PER_MODEL)
    rubric = rubric or load_rubric()
    return stratified_sample(pool, n, seed, [d.key for d in rubric.scored], rubric.scale)


def sampling_record(sample: Sample | None, source: str = "") -> dict:
    """What `Study.sampling` keeps: the design, and for a random design the whole population
    it drew from as [trace id, inclusion probability, stratum], so the jury-corrected page can
    take the jury's mean over all of it. `source` names a hand-made choice ("explicit",
    "round") when there is no sample."""
    if sample is None:
        return {"design": source}
    if not sample.inclusion:
        return {"design": sample.design}
    population = [
        [int(key), probability, sample.stratum_of(key)]
        for key, probability in sorted(sample.inclusion.items(), key=lambda kv: int(kv[0]))
    ]
    return {"design": sample.design, "population": population}


@dataclass(frozen=True)
class StudySpec:
    name: str
    kind: str = Study.Kind.STUDY
    # A draft until its checklist holds (annotation.lifecycle); code that builds a study
    # whose references it writes itself may open it at once.
    status: str = Study.Status.DRAFT
    seed: int = 1
    overlap: dict | None = None  # track -> clinicians per item
    reference_share: float = 0.0
    require_calibration: bool = False
    feedback: str = Study.Feedback.END
    on_fail: str = Study.OnFail.RETAKE
    min_exact: float = 0.5
    min_adjacent: float = 0.8
    min_alpha: float = 0.4
    adjudication_threshold: int = 2
    blind_adjudication: bool = False
    instructions: str = ""
    rubric_name: str = "patientagentbench"
    rubric_version: str | None = None  # None: the newest version of the rubric named


def create_study(
    spec: StudySpec,
    trace_ids: list[int],
    clinicians: list[Clinician],
    actor,
    sample: Sample | None = None,
    source: str = "",
) -> Study:
    """Items for the chosen conversations, assignments for the chosen clinicians, atomically;
    the sampler's design (and a random design's inclusion probabilities) recorded."""
    if not trace_ids:
        raise StudyError("Choose at least one conversation.")
    overlap = {
        t: int(n)
        for t, n in (spec.overlap or {"clinical": 1, "operations": 1}).items()
        if int(n) > 0
    }
    if not overlap:
        raise StudyError("Set at least one track's overlap to 1 or more.")
    raters = [Rater(code=c.code, tracks=c.tracks, load=_open_load(c)) for c in clinicians]
    item_keys = [str(pk) for pk in trace_ids]
    try:
        rubric = load_rubric(spec.rubric_name, spec.rubric_version)
    except RubricError as exc:
        raise StudyError(str(exc)) from exc
    try:
        plan = assign(item_keys, raters, overlap, spec.seed)
    except ValueError as exc:
        raise StudyError(str(exc)) from exc
    with transaction.atomic():
        study = Study.objects.create(
            kind=spec.kind,
            status=spec.status,
            name=spec.name,
            seed=spec.seed,
            overlap=overlap,
            reference_share=spec.reference_share,
            require_calibration=spec.require_calibration,
            feedback=spec.feedback,
            on_fail=spec.on_fail,
            min_exact=spec.min_exact,
            min_adjacent=spec.min_adjacent,
            min_alpha=spec.min_alpha,
            adjudication_threshold=spec.adjudication_threshold,
            blind_adjudication=spec.blind_adjudication,
            instructions=spec.instructions,
            rubric_name=rubric.name,
            rubric_version=rubric.version,
            sampling=sampling_record(sample, source),
            created_by=actor,
        )
        inclusion = sample.inclusion if sample is not None else {}
        items = {
            key: Item.objects.create(
                study=study,
                trace_id=int(key),
                is_reference=spec.kind == Study.Kind.CALIBRATION,
                inclusion_probability=inclusion.get(key),
                stratum=sample.stratum_of(key)[:80] if inclusion else "",
            )
            for key in item_keys
        }
        _mark_hidden_references(study, items, spec)
        _create_assignments(study, items, plan, clinicians, actor)
        audit.record(actor, "study_created", study=study, items=len(items), overlap=overlap)
    return study


def _mark_hidden_references(study: Study, items: dict[str, Item], spec: StudySpec) -> None:
    """A seeded share of a study's items doubles as hidden reference items for drift."""
    if spec.kind != Study.Kind.STUDY or spec.reference_share <= 0:
        return
    keys = sorted(items)
    count = round(len(keys) * min(spec.reference_share, 1.0))
    for key in random.Random(spec.seed).sample(keys, count):
        items[key].is_reference = True
        items[key].save(update_fields=["is_reference"])


def _create_assignments(study, items, plan, clinicians, actor) -> None:
    by_code = {c.code: c for c in clinicians}
    tracks_of: dict[tuple[str, str], list[str]] = {}
    for key, per_track in plan.items():
        for track, codes in per_track.items():
            for code in codes:
                tracks_of.setdefault((key, code), []).append(track)
    mine: dict[str, list[str]] = {}
    for key, code in tracks_of:
        mine.setdefault(code, []).append(key)
    assignments = [
        Assignment(
            item=items[key],
            clinician=by_code[code],
            tracks=sorted(tracks_of[(key, code)]),
            position=position,
        )
        for code, keys in mine.items()
        for position, key in enumerate(review_order(sorted(keys), code, study.seed))
    ]
    # One insert for the assignments and one for their audit rows, however large the study.
    Assignment.objects.bulk_create(assignments)
    audit.record_assigned(actor, study, assignments)


def _open_load(clinician: Clinician) -> int:
    return clinician.assignments.filter(status=Assignment.Status.OPEN).count()


# --- progress --------------------------------------------------------------------------------


def progress_by_clinician(study: Study) -> list[dict]:
    rows = (
        Assignment.objects.filter(item__study=study)
        .live()
        .values("clinician__code", "clinician__track")
        .annotate(total=Count("pk"), done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)))
        .order_by("clinician__code")
    )
    return list(rows)


def progress_by_item(study: Study) -> list[dict]:
    rows = (
        Item.objects.filter(study=study)
        .annotate(
            assigned=Count("assignments", filter=~Q(assignments__status="withdrawn")),
            done=Count("assignments", filter=Q(assignments__status="submitted")),
        )
        .values(
            "pk", "trace__model_name", "trace__task__task_id", "is_reference", "assigned", "done"
        )
        .order_by("pk")
    )
    return list(rows)


# --- people leaving --------------------------------------------------------------------------


def deactivate_and_reassign(clinician: Clinician, actor) -> int:
    """Withdraw the clinician's open items and give each to an eligible colleague."""
    open_assignments = list(
        clinician.assignments.filter(status=Assignment.Status.OPEN).select_related("item__study")
    )
    with transaction.atomic():
        moved = 0
        for study in {a.item.study for a in open_assignments}:
            moved += _reassign_study(study, clinician, actor)
        clinician.user.is_active = False
        clinician.user.save(update_fields=["is_active"])
        audit.record(actor, "clinician_deactivated", clinician=clinician.code, reassigned=moved)
    return moved


def _reassign_study(study: Study, leaving: Clinician, actor) -> int:
    live = Assignment.objects.filter(item__study=study).live()
    leaving_items = _open_item_ids(study, leaving)
    open_items: dict[str, dict[str, list[str]]] = {}
    for a in live.select_related("clinician", "item"):
        if a.item_id in leaving_items:
            per_track = open_items.setdefault(str(a.item_id), {})
            for track in a.tracks:
                per_track.setdefault(track, []).append(a.clinician.code)
    others = list(Clinician.objects.filter(user__is_active=True).exclude(pk=leaving.pk))
    raters = [Rater(code=c.code, tracks=c.tracks, load=_open_load(c)) for c in others] + [
        Rater(code=leaving.code, tracks=leaving.tracks, load=0)
    ]
    try:
        plan = reassign(open_items, leaving.code, raters, study.seed)
    except ValueError as exc:
        raise StudyError(str(exc)) from exc
    by_code = {c.code: c for c in others}
    moved = 0
    for assignment in leaving.assignments.filter(item__study=study, status=Assignment.Status.OPEN):
        assignment.status = Assignment.Status.WITHDRAWN
        assignment.save(update_fields=["status"])
        audit.record(actor, "withdrawn", assignment=assignment, clinician=leaving.code)
        before = open_items[str(assignment.item_id)]
        after = plan[str(assignment.item_id)]
        for code in sorted({code for track in assignment.tracks for code in after[track]}):
            # Only the tracks this colleague newly covers: one replacement per track, so a
            # leaver in both tracks may be replaced by two people, one track each.
            tracks = [t for t in assignment.tracks if code in after[t] and code not in before[t]]
            if tracks and code in by_code:
                _hand_over(assignment.item, by_code[code], tracks, leaving, actor)
                moved += 1
    return moved


def _hand_over(item: Item, to: Clinician, tracks: list[str], leaving: Clinician, actor) -> None:
    """Give `to` the item in `tracks`: a new assignment, or more tracks on the open one they
    already hold (the assignment rules allow one clinician to cover both tracks of an item).
    A colleague who already submitted the item cannot take on a track afterwards."""
    held = Assignment.objects.filter(item=item, clinician=to).live().first()
    if held is None:
        held = Assignment.objects.create(
            item=item, clinician=to, tracks=tracks, position=_next_position(to, item.study)
        )
    elif held.status == Assignment.Status.OPEN:
        held.tracks = sorted(set(held.tracks) | set(tracks))
        held.save(update_fields=["tracks"])
    else:
        raise StudyError(
            f"item {item.pk}: no {'/'.join(tracks)} clinician is free to replace {leaving.code} "
            f"({to.code} is on the item and has already submitted it)"
        )
    audit.record(
        actor,
        "reassigned",
        assignment=held,
        clinician=to.code,
        from_code=leaving.code,
        tracks=tracks,
    )


def _open_item_ids(study: Study, clinician: Clinician) -> set[int]:
    return set(
        clinician.assignments.filter(item__study=study, status=Assignment.Status.OPEN).values_list(
            "item_id", flat=True
        )
    )


def _next_position(clinician: Clinician, study: Study) -> int:
    last = clinician.assignments.filter(item__study=study).order_by("-position").first()
    return (last.position + 1) if last else 0


# --- names clinicians must not read -----------------------------------------------------------

# Shorter names ("m", "qa") would match ordinary words: they are not looked for.
SHORTEST_NAME = 3


def identifying_names(study: Study) -> set[str]:
    """The names a clinician must not learn, from the runs the study's conversations come
    from: their models' names and ids, the patient model's, each run's label and "run N"."""
    traces = Trace.objects.filter(pk__in=study.items.values("trace_id"))
    names: set[str] = set()
    for row in traces.values(
        "model_name",
        "model__model_id",
        "run_id",
        "run__label",
        "run__patient_model__name",
        "run__patient_model__model_id",
    ).distinct():
        names.update(value for value in row.values() if isinstance(value, str))
        names.add(f"run {row['run_id']}")
    return {name.strip() for name in names if len(name.strip()) >= SHORTEST_NAME}


def names_shown_to_clinicians(study: Study) -> list[str]:
    """Warnings, one per name: the study's name and instructions reach its clinicians, so a
    model or run named there unblinds them."""
    names = identifying_names(study)
    warnings = []
    for field, text in (("name", study.name), ("instructions", study.instructions)):
        for name in sorted(names, key=str.lower):
            if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text or "", re.IGNORECASE):
                warnings.append(
                    f"The study's {field} {'contain' if field == 'instructions' else 'contains'} "
                    f"“{name}”, a model or run of its "
                    "conversations; clinicians see the "
                    f"{field}, so it unblinds them. Rename it before opening the study."
                )
    return warnings
