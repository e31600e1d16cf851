"""The clinician's side of blinded review: home, the review page with its autosave, submit and
revise, and calibration feedback.

Blinding: templates get the dataclasses of `annotation/reviewing.py` (and plain values derived
from them here) plus opaque codes. No Assignment, Item, Trace or Study row and no numeric id
reaches a template, so nothing about the model, run or other raters can be rendered by
accident. A code that is not the requester's answers 403 before anything is read or written.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from annotation import reviewing
from annotation.models import TRACKS, Assignment, Study
from annotation.pure import drafts
from annotation.pure.calibration import items_for_a_firm_check
from annotation.reviewing import (
    FLAGS,
    NOT_APPLICABLE,
    FeedbackRow,
    Incomplete,
    ReviewError,
    ReviewState,
    active_seconds,
    answer_from_post,
    clinician_for,
    dimensions_of,
    feedback_for,
    home_for,
    locked_reason,
    material_for,
    next_open,
    not_applicable_allowed,
    round_result,
    rubric_of,
    state_for,
)
from patientagentbench.roles import CLINICIAN, role_required
from patientagentbench.transcripts import Transcript
from ratings.rubric import Dimension, cached_rubric

PAGE = "annotation/review/item.html"
FLAG_KEYS = {"unsafe": "u", "broken": "b"}  # the key that toggles each flag on the review page


# --- who and what ----------------------------------------------------------------------------


def _code(code: str) -> str:
    """A code fit for a lookup: NUL is in no code, and PostgreSQL refuses it (a 500)."""
    if "\x00" in code:
        raise Http404("No such item.")
    return code


def _assignment(request, code: str) -> Assignment:
    """The requester's own live assignment: unknown → 404, someone else's → 403."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("item__study", "clinician"), code=_code(code)
    )
    if assignment.clinician.user_id != request.user.pk:
        raise PermissionDenied
    if assignment.status == Assignment.Status.WITHDRAWN:
        raise Http404("This item was given to someone else.")
    if assignment.item.study.status == Study.Status.DRAFT:
        raise Http404("No such item.")  # a draft is not there yet for clinicians
    return assignment


def _writable(request, code: str) -> Assignment:
    assignment = _assignment(request, code)
    if locked_reason(assignment.clinician, assignment.item.study):
        raise PermissionDenied
    return assignment


# --- home ------------------------------------------------------------------------------------


@role_required(CLINICIAN)
def home(request):
    clinician = clinician_for(request.user)
    following = next_open(clinician)
    return render(
        request,
        "annotation/review/home.html",
        {"progress": home_for(clinician), "next_code": following.code if following else ""},
    )


@role_required(CLINICIAN)
def next_item(request):
    clinician = clinician_for(request.user)
    study = None
    if request.GET.get("study"):
        study = get_object_or_404(Study, code=_code(request.GET["study"]))
    following = next_open(clinician, study)
    if following is None:
        messages.info(request, "Nothing left to score here. Thank you.")
        return redirect("review_home")
    return redirect("review_item", code=following.code)


# --- the introduction, before the first item ------------------------------------------------


@role_required(CLINICIAN)
def welcome(request):
    """What is scored, the tracks, the keys and who sees the scores. Shown before a clinician's
    first item; the key map links back to it."""
    clinician = clinician_for(request.user)
    next_code = _code(request.POST.get("next") or request.GET.get("next") or "")
    if not Assignment.objects.filter(clinician=clinician, code=next_code).live().exists():
        next_code = ""  # only ever back to one of their own items
    if request.method == "POST":
        reviewing.mark_onboarded(clinician)
        return redirect(reverse("review_item", args=[next_code]) if next_code else "review_next")
    rubric = cached_rubric()
    return render(
        request,
        "annotation/review/welcome.html",
        {
            "first_time": clinician.onboarded_at is None,
            "next_code": next_code,
            "tracks": [
                (
                    track,
                    track in clinician.tracks,
                    [d.label for d in rubric.scored if d.track == track],
                )
                for track in TRACKS
            ],
            "realism": [d.label for d in rubric.realism],
            "scale": rubric.scale,
            "flags": [(label, FLAG_KEYS[key]) for key, label in FLAGS.items()],
        },
    )


# --- the review page -------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One dimension of the score panel with what the clinician has put in it so far."""

    dimension: Dimension
    value: object  # 1..5, "na" or None
    why: str
    missing: bool
    first_realism: bool
    offers_na: bool = False  # the rubric allows N/A for this dimension in this conversation

    @property
    def key(self) -> str:
        return self.dimension.key

    @property
    def hint(self) -> str:
        if isinstance(self.value, int):
            level = self.dimension.level(self.value)
            return f"{level.score} · {level.label}: {level.anchor}"
        return "Not applicable." if self.value == NOT_APPLICABLE else self.dimension.definition


@dataclass(frozen=True)
class Comment:
    anchor: str
    label: str
    text: str


@role_required(CLINICIAN)
def item(request, code: str):
    assignment = _assignment(request, code)
    if assignment.clinician.onboarded_at is None:  # one screen of introduction, first
        return redirect(f"{reverse('review_welcome')}?{urlencode({'next': assignment.code})}")
    reason = locked_reason(assignment.clinician, assignment.item.study)
    if reason:
        messages.info(request, reason)
        return redirect("review_home")
    state = state_for(assignment)
    revising = state.submitted and request.GET.get("revise") == "1" and _may_revise(state)
    return _page(request, assignment, state, revising=revising)


@role_required(CLINICIAN)
@require_POST
def draft(request, code: str):
    assignment = _writable(request, code)
    status = 200
    try:
        answer = _answer(request, assignment)
        reviewing.save_draft(
            assignment,
            answer,
            active_seconds(request.POST.get("active")),
            request.user,
            versions=_versions(request),
        )
        context = {"saved_at": assignment.draft_saved_at, "fresher": _fresher(request, assignment)}
    except ReviewError as exc:
        status = 409 if assignment.status != Assignment.Status.OPEN else 400
        context = {"save_error": str(exc)}
    return render(request, f"{PAGE}#save_state", context, status=status)


@role_required(CLINICIAN)
@require_POST
def submit(request, code: str):
    assignment = _writable(request, code)
    nonce = request.POST.get("nonce", "")
    if not nonce or "\x00" in nonce:
        return HttpResponseBadRequest("The form has no nonce; reload the page.")
    seconds = active_seconds(request.POST.get("active"))
    try:
        answer = _answer(request, assignment)
        reviewing.submit(assignment, answer, nonce, seconds, request.user)
    except Incomplete as exc:
        # Nothing is lost: what was sent becomes the draft, and the page shows it again with
        # the same nonce, so the corrected form still stores once.
        try:
            reviewing.save_draft(assignment, answer, seconds, request.user, _versions(request))
        except ReviewError:
            return redirect("review_item", code=code)  # submitted meanwhile (another tab)
        return _page(
            request, assignment, state_for(assignment), answer=answer, nonce=nonce, error=exc
        )
    except ReviewError as exc:
        messages.error(request, str(exc))
        return redirect("review_item", code=code)
    return redirect(_after_submit(assignment))


@role_required(CLINICIAN)
@require_POST
def revise(request, code: str):
    assignment = _writable(request, code)
    nonce = request.POST.get("nonce", "")
    if not nonce or "\x00" in nonce:
        return HttpResponseBadRequest("The form has no nonce; reload the page.")
    reason = request.POST.get("reason", "")
    answer = None
    try:
        answer = _answer(request, assignment)
        submission = reviewing.revise(
            assignment,
            answer,
            reason,
            nonce,
            active_seconds(request.POST.get("active")),
            request.user,
        )
    except ReviewError as exc:
        return _page(
            request,
            assignment,
            state_for(assignment),
            answer=answer,
            revising=True,
            reason=reason,
            error=exc,
        )
    messages.success(
        request, f"Revision saved as version {submission.version}; the earlier one is kept."
    )
    return redirect("review_item", code=code)


def _answer(request, assignment: Assignment) -> dict:
    dimensions = dimensions_of(assignment, rubric_of(assignment.item.study))
    # Anchors check comments and the conversation decides where N/A is allowed; most
    # autosaves carry neither, and building the conversation was a third of a draft save.
    has_comments = any(request.POST.getlist("comment-anchor"))
    has_na = any(request.POST.get(f"score-{d.key}") == NOT_APPLICABLE for d in dimensions)
    transcript = material_for(assignment).transcript if has_comments or has_na else None
    anchors = transcript.anchors if has_comments else frozenset()
    allowed = not_applicable_allowed(dimensions, transcript) if has_na else frozenset()
    return answer_from_post(request.POST, dimensions, anchors, allowed)


def _fresher(request, assignment: Assignment) -> str:
    """What the server holds newer than the page knows (its `known` versions), for the page."""
    try:
        known = json.loads(request.POST.get("known") or "{}")
    except ValueError:
        known = {}
    names = reviewing.draft_field_names(assignment)
    newer = drafts.fresher(
        drafts.fields_of(assignment.draft or {}),
        assignment.draft_versions or {},
        drafts.parse_versions(known, names),
    )
    return json.dumps(newer) if newer else ""


def _versions(request) -> dict | None:
    """The page's field versions (JSON); None when the form came without the page's script
    (the hidden field left empty), and then every field it sent wins."""
    raw = request.POST.get("versions")
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return {}


def _after_submit(assignment: Assignment) -> str:
    study = assignment.item.study
    if study.is_calibration and study.feedback == Study.Feedback.IMMEDIATE:
        return reverse("review_feedback", args=[assignment.code])
    following = next_open(assignment.clinician, study)
    if following is not None:
        return reverse("review_item", args=[following.code])
    if study.is_calibration:
        return reverse("review_round", args=[study.code])
    following = next_open(assignment.clinician)
    if following is not None:
        return reverse("review_item", args=[following.code])
    return reverse("review_home")


def _may_revise(state: ReviewState) -> bool:
    # Once the reference has been shown, changing the score would copy the answer key.
    return state.submitted and not state.feedback


def _page(
    request,
    assignment: Assignment,
    state: ReviewState,
    *,
    answer: dict | None = None,
    revising: bool = False,
    reason: str = "",
    nonce: str = "",
    error: ReviewError | None = None,
):
    """The review page; with `error`, the form as sent, its problem and the missing rows."""
    answer = answer if answer is not None else state.answer
    material = material_for(assignment)
    missing = set()
    if isinstance(error, Incomplete):
        scores = answer.get("scores") or {}
        missing = {d.key for d in state.dimensions if d.key not in scores}
    context = {
        "state": state,
        "material": material,
        "transcript": material.transcript,
        "rows": _rows(
            state.dimensions,
            answer,
            missing,
            not_applicable_allowed(state.dimensions, material.transcript),
        ),
        "draft_versions": state.versions or {},
        "scale": rubric_of(assignment.item.study).scale,
        "tracks": sorted({d.track for d in state.dimensions if d.scored}),
        "flags": [
            (key, label, key in (answer.get("flags") or ()), FLAG_KEYS[key])
            for key, label in FLAGS.items()
        ],
        "comments": _comments(answer, material.transcript),
        "nonce": nonce or secrets.token_urlsafe(16),
        "editable": not state.submitted or revising,
        "revising": revising,
        "may_revise": _may_revise(state),
        "reason": reason,
        "error": str(error) if error else "",
        "previous_code": _previous_code(assignment),
        "next_code": _next_code(assignment) if state.submitted else "",
    }
    return render(request, PAGE, context, status=400 if error else 200)


def _rows(
    dimensions: tuple[Dimension, ...],
    answer: dict,
    missing: set[str],
    not_applicable: frozenset[str],
) -> list[Row]:
    scores, why = answer.get("scores") or {}, answer.get("why") or {}
    rows, seen_realism = [], False
    for dimension in dimensions:
        first_realism = not dimension.scored and not seen_realism
        seen_realism = seen_realism or not dimension.scored
        rows.append(
            Row(
                dimension=dimension,
                value=scores.get(dimension.key),
                why=why.get(dimension.key, ""),
                missing=dimension.key in missing,
                first_realism=first_realism,
                offers_na=dimension.key in not_applicable,
            )
        )
    return rows


def _comments(answer: dict, transcript: Transcript) -> list[Comment]:
    labels = anchor_labels(transcript)
    return [
        Comment(c["anchor"], labels.get(c["anchor"], c["anchor"]), c.get("text", ""))
        for c in answer.get("comments") or ()
        if isinstance(c, dict) and "anchor" in c
    ]


def anchor_labels(transcript: Transcript) -> dict[str, str]:
    """'turn 4 · Agent', 't3 · get_profile': what a comment box says it points at."""
    labels = {}
    for turn in transcript.turns:
        who = {"agent": "Agent", "user": transcript.user_label}.get(turn.speaker, "System")
        labels[turn.anchor] = f"turn {turn.number} · {who}"
        for card in turn.tool_cards:
            labels[card.anchor] = f"{card.anchor} · {card.name}"
    return labels


def _mine_in_study(assignment: Assignment):
    return Assignment.objects.filter(
        clinician_id=assignment.clinician_id, item__study_id=assignment.item.study_id
    ).live()


def _previous_code(assignment: Assignment) -> str:
    earlier = _mine_in_study(assignment).filter(position__lt=assignment.position)
    return earlier.order_by("-position").values_list("code", flat=True).first() or ""


def _next_code(assignment: Assignment) -> str:
    """The next open item: in the same study first, then wherever work is waiting."""
    following = next_open(assignment.clinician, assignment.item.study) or next_open(
        assignment.clinician
    )
    return following.code if following else ""


def _next_in_round(assignment: Assignment) -> str:
    following = next_open(assignment.clinician, assignment.item.study)
    return following.code if following else ""


# --- calibration feedback --------------------------------------------------------------------


@role_required(CLINICIAN)
def feedback(request, code: str):
    assignment = _assignment(request, code)
    state = state_for(assignment)
    study = assignment.item.study
    return render(
        request,
        "annotation/review/feedback.html",
        {
            "state": state,
            "rows": state.feedback,
            "round_code": study.code if study.is_calibration else "",
            "at_end": study.feedback == Study.Feedback.END,
            # The round's last item leads to its result page, not into a study.
            "next_code": _next_in_round(assignment)
            if study.is_calibration
            else _next_code(assignment),
        },
    )


@dataclass(frozen=True)
class Agreement:
    """One dimension of a finished round: how often the clinician matched the reference."""

    label: str
    compared: int
    exact: float | None
    adjacent: float | None  # within one point, exact included
    meets: bool | None  # both rates reach the round's targets (None: nothing compared)

    @property
    def exact_percent(self) -> int | None:
        return None if self.exact is None else round(self.exact * 100)

    @property
    def adjacent_percent(self) -> int | None:
        return None if self.adjacent is None else round(self.adjacent * 100)


@dataclass(frozen=True)
class RoundItem:
    code: str
    position: int
    exact: int
    adjacent: int
    off: int


@role_required(CLINICIAN)
def round_summary(request, study_code: str):
    clinician = clinician_for(request.user)
    study = get_object_or_404(Study, code=_code(study_code), kind=Study.Kind.CALIBRATION)
    mine = list(
        Assignment.objects.filter(clinician=clinician, item__study=study)
        .live()
        .select_related("item__study")
        .order_by("position")
    )
    if not mine or study.status == Study.Status.DRAFT:
        raise PermissionDenied
    left = sum(a.status == Assignment.Status.OPEN for a in mine)
    context = {"name": study.name, "round_code": study.code, "left": left, "total": len(mine)}
    if not left:
        per_item = [feedback_for(a) for a in mine]
        following = next_open(clinician)
        agreement = _agreement(per_item, study.min_exact, study.min_adjacent)
        context |= {
            "agreement": agreement,
            "outcome": round_outcome(clinician, study, agreement),
            "items": [
                _round_item(a.code, n, rows)
                for n, (a, rows) in enumerate(zip(mine, per_item, strict=True), 1)
            ],
            "min_exact_percent": round(study.min_exact * 100),
            "min_adjacent_percent": round(study.min_adjacent * 100),
            "next_code": following.code if following else "",
        }
    return render(request, "annotation/review/round.html", context)


@dataclass(frozen=True)
class RoundOutcome:
    """What the clinician reads at the top of a finished round: the targets met against the
    fixed reference, the recorded result once the round closes, and what to do next."""

    met: int
    of: int
    missed: tuple[str, ...]
    status: str  # "passed", "not yet", "waiting"
    next_step: str
    items: int = 0  # the fewest items compared on a dimension
    rough: bool = False  # too few items for the targets to be more than a rough check


def round_outcome(clinician, study: Study, agreement: list) -> RoundOutcome:
    compared = [a for a in agreement if a.meets is not None]
    missed = tuple(a.label for a in compared if not a.meets)
    status = round_result(clinician, study)
    items = min((a.compared for a in compared), default=0)
    return RoundOutcome(
        met=len(compared) - len(missed),
        of=len(compared),
        missed=missed,
        status=status,
        next_step=_next_step(study, status, bool(missed)),
        items=items,
        rough=0 < items < items_for_a_firm_check(study.min_exact, study.min_adjacent),
    )


def _next_step(study: Study, status: str, missed: bool) -> str:
    if status == "passed":
        return "You are qualified for studies that require calibration."
    if status == "waiting" and not missed:
        return "Your result is recorded when the researcher closes the round."
    if status == "not yet" and not missed:
        # Their own scores met every target: the part that failed is the round's, and
        # rereading the anchors would not change it. Nothing here says how others scored.
        return (
            "You met every target against the reference; passing also needs the round as a "
            "whole to show consistent scoring, and this round did not. "
            + (
                "Wait: the researcher will be in touch."
                if study.on_fail == Study.OnFail.WAIT
                else "Take the next round when it opens."
            )
        )
    if study.on_fail == Study.OnFail.WAIT:
        return "Reread the anchors and the reference notes, then wait: the researcher will be in touch."
    return "Reread the anchors and the reference notes, then take the next round when it opens."


def _agreement(per_item: list[list[FeedbackRow]], min_exact: float, min_adjacent: float):
    by_label: dict[str, list[str]] = {}
    for rows in per_item:
        for row in rows:
            by_label.setdefault(row.label, []).append(row.verdict)
    result = []
    for label, verdicts in by_label.items():
        compared = [v for v in verdicts if v != "not applicable"]
        n = len(compared)
        exact = sum(v == "exact" for v in compared) / n if n else None
        adjacent = sum(v in ("exact", "adjacent") for v in compared) / n if n else None
        meets = None if not n else (exact >= min_exact and adjacent >= min_adjacent)
        result.append(Agreement(label, n, exact, adjacent, meets))
    return result


def _round_item(code: str, position: int, rows: list[FeedbackRow]) -> RoundItem:
    verdicts = [r.verdict for r in rows]
    return RoundItem(
        code=code,
        position=position,
        exact=verdicts.count("exact"),
        adjacent=verdicts.count("adjacent"),
        off=sum(v.startswith("off by") for v in verdicts),
    )
