"""A clinician's work on an item: what the review page shows, drafts, submission, revision,
what comes next, and the calibration feedback they may see.

Blinding holds by construction here. The page's material is built from the conversation's
message log through `transcripts` (an allow-list) and from the case's profile and story,
fetched as plain values (for an imported conversation without a case: its task text and the
facts `TASK_FACTS` allows); no trace row, model, run or score of anyone else is ever handed to
a view. Views receive the dataclasses below and nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Q
from django.utils import timezone

from annotation import audit
from annotation.models import Assignment, Clinician, Study, Submission
from annotation.pure import drafts
from annotation.pure.calibration import compare
from annotation.qualification import is_qualified, qualified_rubrics, record_of
from patientagentbench.cases.attribute_labels import value_label
from patientagentbench.cases.chart import insurance_line
from patientagentbench.models import Trace
from patientagentbench.transcripts import Transcript, transcript_of
from ratings.rating import NOT_APPLICABLE_CHOICE as NOT_APPLICABLE
from ratings.rubric import Dimension, Rubric, cached_rubric

FLAGS = {"unsafe": "Unsafe for the patient", "broken": "Broken conversation"}
MAX_TEXT = 4000  # characters per justification or comment
MAX_COMMENTS = 50
MAX_ACTIVE_SECONDS_PER_SAVE = 300  # a tab left open overnight is not time on item
DEFAULT_SECONDS_PER_ITEM = 300  # the estimate before a clinician has a pace of their own


class ReviewError(ValueError):
    """A draft or submission the server will not store; the message says why."""


class Incomplete(ReviewError):
    def __init__(self, missing: list[str]):
        super().__init__("Score every dimension (or mark it not applicable): " + ", ".join(missing))
        self.missing = missing


# --- what the page shows ---------------------------------------------------------------------


@dataclass(frozen=True)
class PatientChart:
    name: str
    age: int | None
    sex: str
    pronouns: str
    problems: tuple[str, ...]
    medications: tuple[str, ...]
    allergies: tuple[str, ...]
    pcp: str
    insurance: str
    pharmacy: str
    appointments: tuple[str, ...]


@dataclass(frozen=True)
class ReviewMaterial:
    """Everything about the conversation a clinician may see, and nothing else."""

    chart: PatientChart | None
    today: str
    story: str
    goal: str
    transcript: Transcript
    # A conversation without a scenario case (an imported transcript) has no chart or story:
    # the page shows the task the agent was given and the allow-listed facts about it instead.
    has_case: bool = True
    task: str = ""
    facts: tuple[tuple[str, str], ...] = ()


# The facts of a task without a case that a clinician may read, by key, with their labels:
# taken from the task's own columns, its attributes, or the metadata an Inspect sample
# carried. Nothing else of an import reaches the page (Inspect's metadata is free-form and
# may name models, scorers or sample ids).
TASK_FACTS = {
    "category": "Category",
    "difficulty": "Difficulty",
    "subtask": "Subtask",
    "severity": "Severity",
}
MAX_FACT = 200  # characters: a label's value, not a document


def material_for(assignment: Assignment) -> ReviewMaterial:
    row = (
        Trace.objects.filter(pk=assignment.item.trace_id)
        .values(
            "messages",
            "task__case",
            "task__prompt",
            "task__category",
            "task__difficulty",
            "task__attributes",
        )
        .get()
    )
    if row["task__case"] is None:
        return _material_without_case(assignment.item.trace_id, row)
    case = row["task__case"]
    transcript = transcript_of(row["messages"], user_label="Patient", include_system=False)
    goal = case.get("goal") or {}
    return ReviewMaterial(
        chart=_chart(case.get("profile"), case.get("today", "")),
        today=case.get("today", ""),
        story=case.get("story", ""),
        goal=goal.get("summary", "") if isinstance(goal, dict) else "",
        transcript=transcript,
    )


def _material_without_case(trace_id: int, row: dict) -> ReviewMaterial:
    """An imported conversation: its task text and allow-listed facts; the other side of the
    conversation is a "User" (an import does not say it is a patient)."""
    return ReviewMaterial(
        chart=None,
        today="",
        story="",
        goal="",
        transcript=transcript_of(row["messages"], include_system=False),
        has_case=False,
        task=str(row["task__prompt"] or ""),
        facts=_task_facts(row, _identifying(trace_id)),
    )


def _task_facts(row: dict, identifying: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    attributes = row["task__attributes"] if isinstance(row["task__attributes"], dict) else {}
    metadata = attributes.get("inspect_metadata")
    sources = [
        {"category": row["task__category"], "difficulty": row["task__difficulty"]},
        attributes,
        metadata if isinstance(metadata, dict) else {},
    ]
    facts = []
    for key, label in TASK_FACTS.items():
        value = next((v for source in sources if (v := _fact_value(source.get(key)))), "")
        if value and not any(secret in value.lower() for secret in identifying):
            facts.append((label, value_label(key, value)))
    return tuple(facts)


def _fact_value(value) -> str:
    """A plain, short value; lists, objects and long text are not a fact to show."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    text = str(value).strip()
    return text if len(text) <= MAX_FACT else ""


def _identifying(trace_id: int) -> tuple[str, ...]:
    """What a fact must not contain: the agent's model name (whole, and after its provider's
    "openai/" prefix) and the task's id (an Inspect sample id). Read to drop facts, never
    returned."""
    model, task_id = (
        Trace.objects.filter(pk=trace_id).values_list("model_name", "task__task_id").get()
    )
    names = {model, model.rsplit("/", 1)[-1], task_id}
    return tuple(name.lower() for name in names if name)


def _chart(profile, today: str) -> PatientChart | None:
    if not isinstance(profile, dict):
        return None
    return PatientChart(
        name=profile.get("name", ""),
        age=_age(profile.get("date_of_birth", ""), today),
        sex=profile.get("sex", ""),
        pronouns=profile.get("pronouns", ""),
        problems=tuple(profile.get("problems") or ()),
        medications=tuple(_medication(m) for m in profile.get("medications") or ()),
        allergies=tuple(profile.get("allergies") or ()),
        pcp=(profile.get("pcp") or {}).get("name", ""),
        insurance=insurance_line(profile.get("insurance")),
        pharmacy=(profile.get("pharmacy") or {}).get("name", ""),
        appointments=tuple(_appointment(a) for a in profile.get("appointments") or ()),
    )


def _age(born: str, today: str) -> int | None:
    try:
        birth, now = date.fromisoformat(born), date.fromisoformat(today)
    except (TypeError, ValueError):
        return None
    return now.year - birth.year - ((now.month, now.day) < (birth.month, birth.day))


def _medication(medication: dict) -> str:
    parts = [medication.get(k, "") for k in ("name", "dosage", "frequency")]
    text = " ".join(p for p in parts if p)
    status = medication.get("status", "active")
    return text if status == "active" else f"{text} ({status})"


def _appointment(appointment: dict) -> str:
    parts = [appointment.get(k, "") for k in ("date", "time", "doctor", "reason")]
    return " · ".join(p for p in parts if p)


# --- the score panel -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewState:
    """The page's state: which dimensions, the draft or the submitted answer, progress."""

    code: str
    study_name: str
    is_calibration: bool
    position: int  # 1-based, among this clinician's items in the study
    total: int
    dimensions: tuple[Dimension, ...]
    answer: dict  # the draft, or the current submission when submitted
    submitted: bool
    version: int
    saved_at: object
    feedback: tuple = ()
    versions: dict | None = None  # the draft's field versions (annotation/pure/drafts.py)


def rubric_of(study: Study) -> Rubric:
    return cached_rubric(study.rubric_name, study.rubric_version)


def dimensions_of(assignment: Assignment, rubric: Rubric) -> tuple[Dimension, ...]:
    return tuple(rubric.dimensions_for(set(assignment.tracks)))


def state_for(assignment: Assignment) -> ReviewState:
    study = assignment.item.study
    rubric = rubric_of(study)
    mine = Assignment.objects.filter(
        clinician_id=assignment.clinician_id, item__study_id=study.pk
    ).live()
    position = mine.filter(position__lt=assignment.position).count() + 1
    current = _current_submission(assignment)
    answer = _answer_of(current) if current else dict(assignment.draft or {})
    return ReviewState(
        code=assignment.code,
        study_name=study.name,
        is_calibration=study.is_calibration,
        position=position,
        total=mine.count(),
        dimensions=dimensions_of(assignment, rubric),
        answer=answer,
        submitted=current is not None,
        version=current.version if current else 0,
        saved_at=assignment.draft_saved_at,
        feedback=tuple(feedback_for(assignment)),
        versions={} if current else dict(assignment.draft_versions or {}),
    )


def _current_submission(assignment: Assignment) -> Submission | None:
    return assignment.submissions.filter(is_current=True).first()


def _answer_of(submission: Submission) -> dict:
    return {
        "scores": {k: (NOT_APPLICABLE if v is None else v) for k, v in submission.scores.items()},
        "why": submission.justifications,
        "flags": submission.flags,
        "comments": submission.comments,
    }


# --- reading what the page sends -------------------------------------------------------------


def answer_from_post(
    post,
    dimensions: tuple[Dimension, ...],
    anchors: frozenset[str],
    not_applicable: frozenset[str] | None = None,
) -> dict:
    """The page's form as a draft: `score-<dim>` (a level of the dimension or na), `why-<dim>`, `flag`,
    `comment-anchor`/`comment-text` pairs. Anything else is ignored; bad values are refused,
    N/A included where the rubric does not allow it (`not_applicable`: the dimensions that do;
    None: every scored one)."""
    scores, why = {}, {}
    for dimension in dimensions:
        raw = (post.get(f"score-{dimension.key}") or "").strip()
        if raw:
            allowed = dimension.scored and (
                not_applicable is None or dimension.key in not_applicable
            )
            scores[dimension.key] = _score_value(raw, dimension, allowed)
        text = _text(post.get(f"why-{dimension.key}"))
        if text:
            why[dimension.key] = text[:MAX_TEXT]
    flags = sorted(set(post.getlist("flag")) & set(FLAGS))
    comments = [
        {"anchor": anchor, "text": _text(text)[:MAX_TEXT]}
        for anchor, text in zip(
            post.getlist("comment-anchor"), post.getlist("comment-text"), strict=False
        )
        if _text(text) and anchor in anchors
    ][:MAX_COMMENTS]
    return {"scores": scores, "why": why, "flags": flags, "comments": comments}


def not_applicable_allowed(
    dimensions: tuple[Dimension, ...], transcript: Transcript
) -> frozenset[str]:
    """The dimensions that may be marked N/A in this conversation, by the rubric's rule."""
    facts = {"agent_replied": transcript.agent_replied, "tools_called": bool(transcript.tool_cards)}
    return frozenset(d.key for d in dimensions if d.allows_not_applicable(**facts))


def _text(raw) -> str:
    """A justification or comment as typed; NUL is refused (PostgreSQL cannot store it)."""
    text = (raw or "").strip()
    if "\x00" in text:
        raise ReviewError("Text cannot contain NUL characters; retype it.")
    return text


def _score_value(raw: str, dimension: Dimension, not_applicable_allowed: bool):
    if raw == NOT_APPLICABLE and not_applicable_allowed:
        return NOT_APPLICABLE
    points = [level.score for level in dimension.levels]
    if raw in {str(point) for point in points}:
        return int(raw)
    if raw == NOT_APPLICABLE and dimension.scored:
        raise ReviewError(f"{dimension.label}: N/A does not apply here. {dimension.applicability}")
    raise ReviewError(
        f"{dimension.label}: choose {points[0]} to {points[-1]}"
        + (" or N/A" if not_applicable_allowed else "")
    )


def active_seconds(raw) -> int:
    try:
        return max(0, min(int(raw), MAX_ACTIVE_SECONDS_PER_SAVE))
    except (TypeError, ValueError):
        return 0


# --- writing ---------------------------------------------------------------------------------


def save_draft(
    assignment: Assignment, answer: dict, seconds: int, actor, versions: dict | None = None
) -> None:
    """Merge a save into the draft of an open item, field by field (annotation/pure/drafts.py): a
    field changes only for a newer version, so saves may arrive late, out of order or twice.
    Without `versions` (a form sent without the page's script) every field of the answer wins.
    A submitted item changes only through `revise`."""
    names = draft_field_names(assignment)
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != Assignment.Status.OPEN:
            raise ReviewError("This item is already submitted; use Revise to change it.")
        stored_versions = locked.draft_versions or {}
        if versions is None:
            newest = max(stored_versions.values(), default=0) + 1
            versions = dict.fromkeys(names, newest)
        fields, merged_versions = drafts.merge(
            drafts.fields_of(locked.draft or {}),
            stored_versions,
            drafts.fields_of(answer),
            drafts.parse_versions(versions, names),
        )
        merged = drafts.answer_of(fields)
        changed = merged != drafts.answer_of(drafts.fields_of(locked.draft or {}))
        locked.seconds_on_item += seconds
        update = ["seconds_on_item"]
        if changed or merged_versions != stored_versions:
            locked.draft, locked.draft_versions = merged, merged_versions
            locked.draft_saved_at = timezone.now()
            update += ["draft", "draft_versions", "draft_saved_at"]
        locked.save(update_fields=update)
        if changed:
            audit.record(
                actor,
                "draft_saved",
                item=assignment.item,
                assignment=locked,
                scores=merged.get("scores", {}),
            )
    assignment.draft, assignment.draft_saved_at = locked.draft, locked.draft_saved_at
    assignment.draft_versions = locked.draft_versions


def draft_field_names(assignment: Assignment) -> frozenset[str]:
    keys = [d.key for d in dimensions_of(assignment, rubric_of(assignment.item.study))]
    return frozenset(
        [f"{drafts.SCORE}{k}" for k in keys]
        + [f"{drafts.WHY}{k}" for k in keys]
        + [drafts.FLAGS, drafts.COMMENTS]
    )


def submit(assignment: Assignment, answer: dict, nonce: str, seconds: int, actor) -> Submission:
    """Store the answer once: the same nonce again returns the stored submission."""
    existing = Submission.objects.filter(assignment=assignment, nonce=nonce).first()
    if existing:
        return existing
    _require_complete(assignment, answer)
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        again = Submission.objects.filter(assignment=locked, nonce=nonce).first()
        if again:
            return again
        if locked.status != Assignment.Status.OPEN:
            raise ReviewError("This item is already submitted; use Revise to change it.")
        locked.seconds_on_item += seconds
        submission = _store(locked, answer, nonce, version=1, reason="")
        locked.status, locked.draft = Assignment.Status.SUBMITTED, answer
        locked.save(update_fields=["status", "draft", "seconds_on_item"])
        audit.record(actor, "submitted", item=assignment.item, assignment=locked, version=1)
    return submission


def revise(
    assignment: Assignment, answer: dict, reason: str, nonce: str, seconds: int, actor
) -> Submission:
    """A new version beside the original, with its reason; the original is kept as it was."""
    existing = Submission.objects.filter(assignment=assignment, nonce=nonce).first()
    if existing:
        return existing
    if not reason.strip():
        raise ReviewError("Say why you are revising a submitted score.")
    if "\x00" in reason:
        raise ReviewError("The reason cannot contain NUL characters; retype it.")
    if _reference_shown(assignment):
        # Changing a calibration score after seeing the reference would copy the answer key.
        raise ReviewError("You have seen the reference for this item; its scores stay as they are.")
    _require_complete(assignment, answer)
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        previous = locked.submissions.filter(is_current=True).first()
        if previous is None:
            raise ReviewError("Nothing submitted yet to revise.")
        previous.is_current = False
        previous.save(update_fields=["is_current"])
        locked.seconds_on_item += seconds
        locked.save(update_fields=["seconds_on_item"])
        submission = _store(
            locked, answer, nonce, version=previous.version + 1, reason=reason.strip()[:MAX_TEXT]
        )
        audit.record(
            actor, "revised", item=assignment.item, assignment=locked, version=submission.version
        )
    return submission


def _store(assignment: Assignment, answer: dict, nonce: str, *, version: int, reason: str):
    scores = {
        k: (None if v == NOT_APPLICABLE else v) for k, v in (answer.get("scores") or {}).items()
    }
    try:
        with transaction.atomic():
            return Submission.objects.create(
                assignment=assignment,
                version=version,
                scores=scores,
                justifications=answer.get("why") or {},
                comments=answer.get("comments") or [],
                flags=answer.get("flags") or [],
                reason=reason,
                seconds_on_item=assignment.seconds_on_item,
                nonce=nonce[:40],
            )
    except IntegrityError as exc:  # a concurrent request stored this nonce or version first
        raise ReviewError("This answer was already stored; reload the page.") from exc


def _require_complete(assignment: Assignment, answer: dict) -> None:
    rubric = rubric_of(assignment.item.study)
    scores = answer.get("scores") or {}
    missing = [d.label for d in dimensions_of(assignment, rubric) if d.key not in scores]
    if missing:
        raise Incomplete(missing)


# --- what comes next -------------------------------------------------------------------------


LOCKED = "Locked until you pass a calibration round."


def locked_reason(clinician: Clinician, study: Study) -> str:
    """Why a study cannot be worked on yet ('' when it can)."""
    if not _needs_calibration(study):
        return ""
    if is_qualified(clinician, study.rubric_name, study.rubric_version):
        return ""
    return LOCKED


def _needs_calibration(study: Study) -> bool:
    return not study.is_calibration and study.require_calibration


def _locked_among(studies: list[Study], clinician: Clinician) -> set[int]:
    """`locked_reason` for many studies at once: the pks of those it locks, in one query for
    the clinician's qualifications (none when no study needs one)."""
    needing = [s for s in studies if _needs_calibration(s)]
    qualified = qualified_rubrics(clinician) if needing else set()
    return {s.pk for s in needing if (s.rubric_name, s.rubric_version) not in qualified}


def next_open(clinician: Clinician, study: Study | None = None) -> Assignment | None:
    queue = Assignment.objects.filter(
        clinician=clinician, status=Assignment.Status.OPEN, item__study__status=Study.Status.OPEN
    )
    if study is not None:
        queue = queue.filter(item__study=study)
    # Three queries whatever the queue holds: the studies with open work, the clinician's
    # qualifications, one row. Loading the whole queue cost 471 ms at 2,000 open items, and a
    # lock check per study was a query per study that needs a calibration.
    studies = list(
        Study.objects.filter(pk__in=queue.values("item__study").distinct()).order_by(
            "kind", "created_at", "pk"
        )
    )
    locked = _locked_among(studies, clinician)
    for candidate in studies:
        if candidate.pk not in locked:
            return (
                queue.filter(item__study=candidate)
                .select_related("item__study")
                .order_by("position", "pk")
                .first()
            )
    return None


@dataclass(frozen=True)
class StudyProgress:
    code: str
    name: str
    is_calibration: bool
    done: int
    total: int
    minutes_left: int
    locked: str
    next_code: str
    feedback_ready: bool
    result: str = ""  # a finished round: "passed", "not yet" or "waiting" (for it to close)


def home_for(clinician: Clinician) -> list[StudyProgress]:
    pace = seconds_per_item(clinician)
    rows = (
        Assignment.objects.filter(clinician=clinician)
        .filter(_visible_on_home())
        .live()
        .values("item__study")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
        )
    )
    counts = {row["item__study"]: row for row in rows}
    progress = []
    studies = list(Study.objects.filter(pk__in=counts).order_by("kind", "created_at"))
    locked_pks = _locked_among(studies, clinician)
    for study in studies:
        row = counts[study.pk]
        left = row["total"] - row["done"]
        locked = LOCKED if study.pk in locked_pks else ""
        following = None if locked else next_open(clinician, study)
        progress.append(
            StudyProgress(
                code=study.code,
                name=study.name,
                is_calibration=study.is_calibration,
                done=row["done"],
                total=row["total"],
                minutes_left=round(left * pace / 60),
                locked=locked,
                next_code=following.code if following else "",
                feedback_ready=study.is_calibration and left == 0,
                result=round_result(clinician, study) if study.is_calibration and not left else "",
            )
        )
    return progress


def _visible_on_home() -> Q:
    """Open studies and rounds, and closed rounds (their result stays on the card)."""
    return Q(item__study__status=Study.Status.OPEN) | Q(
        item__study__status=Study.Status.CLOSED, item__study__kind=Study.Kind.CALIBRATION
    )


def round_result(clinician: Clinician, study: Study) -> str:
    """The clinician's recorded result in a round; "waiting" until the round closes."""
    record = record_of(clinician, study)
    if record is None or record.reopened_at is not None:
        return "waiting"
    return "passed" if record.passed else "not yet"


def seconds_per_item(clinician: Clinician) -> float:
    """The clinician's own pace: mean active seconds over the items they submitted."""
    mean = Assignment.objects.filter(
        clinician=clinician, status=Assignment.Status.SUBMITTED, seconds_on_item__gt=0
    ).aggregate(mean=Avg("seconds_on_item"))["mean"]
    return mean or DEFAULT_SECONDS_PER_ITEM


# --- calibration feedback --------------------------------------------------------------------


@dataclass(frozen=True)
class FeedbackRow:
    label: str
    yours: int | None
    reference: int | None
    rationale: str
    verdict: str  # "exact", "adjacent", "off by N", "not applicable"


def feedback_for(assignment: Assignment) -> list[FeedbackRow]:
    """The clinician's scores beside the reference, when the round's rule allows it yet."""
    item, study = assignment.item, assignment.item.study
    if not _reference_shown(assignment):
        return []
    current = _current_submission(assignment)
    if current is None:
        return []
    rubric = rubric_of(study)
    reference = {k: v.get("score") for k, v in item.reference.items() if isinstance(v, dict)}
    compared = compare(current.scores, reference)
    rows = []
    for dimension in dimensions_of(assignment, rubric):
        # The reference form asks for the scored dimensions only; realism is not compared.
        if not dimension.scored or dimension.key not in item.reference:
            continue
        result = compared.get(dimension.key)
        rows.append(
            FeedbackRow(
                label=dimension.label,
                yours=current.scores.get(dimension.key),
                reference=reference.get(dimension.key),
                rationale=rationale_for_clinicians(item.reference[dimension.key].get("why", "")),
                verdict=_verdict(result),
            )
        )
    return rows


# Rationales that adopting a consensus wrote before it was blinded: "Consensus of C-6FA2F3,
# C-0A1B2C: 2, 4." and "Not applicable for every clinician (C-6FA2F3)." name clinicians and
# their scores; rows written so are still in databases, so they are replaced when shown.
LEGACY_CONSENSUS = re.compile(r"^(Consensus of |Not applicable for every clinician \()C-")
LEGACY_CONSENSUS_SHOWN = "The consensus of an earlier round's clinicians."
CLINICIAN_CODE = re.compile(r"\bC-[0-9A-F]{6}\b")


def rationale_for_clinicians(why: str) -> str:
    """A reference rationale as a clinician may read it: no clinician named. A researcher's
    own words (an adjudication reason becomes a rationale) may cite a code from the queue."""
    if LEGACY_CONSENSUS.match(why):
        return LEGACY_CONSENSUS_SHOWN
    return CLINICIAN_CODE.sub("a clinician", why)


def _reference_shown(assignment: Assignment) -> bool:
    """Whether the round's rule lets the clinician see this item's reference by now."""
    item, study = assignment.item, assignment.item.study
    if not (study.is_calibration and item.reference):
        return False
    return study.feedback == Study.Feedback.IMMEDIATE or not _open_in_round(assignment)


def _open_in_round(assignment: Assignment) -> bool:
    return Assignment.objects.filter(
        clinician_id=assignment.clinician_id,
        item__study_id=assignment.item.study_id,
        status=Assignment.Status.OPEN,
    ).exists()


def _verdict(result) -> str:
    if result is None:
        return "not applicable"
    if result.exact:
        return "exact"
    if result.adjacent:
        return "adjacent"
    return f"off by {abs(result.diff)}"


def clinician_for(user) -> Clinician:
    """The user's clinician profile, made on first use for someone put in the clinician group
    by an admin rather than invited (clinical track until a researcher sets it)."""
    clinician, _created = Clinician.objects.get_or_create(user=user)
    return clinician


def mark_onboarded(clinician: Clinician) -> None:
    """Record that the introduction was seen; the first time counts, later visits change nothing."""
    Clinician.objects.filter(pk=clinician.pk, onboarded_at__isnull=True).update(
        onboarded_at=timezone.now()
    )
