"""What the adjudication pages show of a study and its items: the study page's item table and an
item's audit trail, blinded or not.

Blinded by construction: the blind versions are built from plain values of the items, the
clinicians' submissions, the decisions and the audit trail, never from a Trace row, so a
template handed them has no model, provider, run, trace id, temperature, repetition or
automatic check to show. Items are addressed by their own number in the study's pages.

Who is blinded: everyone on a study marked "blind adjudication", and an adjudicator who is not
also a researcher on every study (an adjudicator who knows which model wrote a conversation
judges the model, not the conversation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Q

from annotation.models import Adjudication, AuditEvent, Clinician, Item, Study, Submission
from patientagentbench.roles import STAFF_ROLES, has_role

# What an audit event's detail may say on a blind page: who, which version, which dimension,
# which scores. Anything else a future event records stays off until it is named here.
BLIND_DETAIL_KEYS = frozenset(
    {"clinician", "from_code", "tracks", "version", "dimension", "score", "scores", "items"}
)


def is_blind_for(user, study: Study) -> bool:
    return study.blind_adjudication or not has_role(user, *STAFF_ROLES)


@dataclass(frozen=True)
class ItemHeader:
    """An item as the adjudication pages name it: its number, its study, nothing else."""

    pk: int
    study_id: int
    study_name: str
    is_reference: bool


def header_of(item_pk: int) -> ItemHeader:
    """Raises Item.DoesNotExist for an unknown item (the view turns it into a 404)."""
    pk, study_id, study_name, is_reference = Item.objects.values_list(
        "pk", "study_id", "study__name", "is_reference"
    ).get(pk=item_pk)
    return ItemHeader(pk, study_id, study_name, is_reference)


@dataclass(frozen=True)
class ItemRow:
    pk: int
    is_reference: bool
    assigned: int
    done: int
    disputes: dict | None  # {"open": n, "decided": n}, None when never disputed


def dispute_counts(disputes) -> dict[int, dict]:
    """Item id → how many of its disputes are open and how many decided."""
    counts: dict[int, dict] = {}
    for dispute in disputes:
        entry = counts.setdefault(dispute.item_id, {"open": 0, "decided": 0})
        entry["decided" if dispute.decision else "open"] += 1
    return counts


def item_rows(study: Study, disputes) -> list[ItemRow]:
    """The study page's items, without the conversation they hold."""
    counts = dispute_counts(disputes)
    rows = (
        Item.objects.filter(study=study)
        .annotate(
            assigned=Count("assignments", filter=~Q(assignments__status="withdrawn")),
            done=Count("assignments", filter=Q(assignments__status="submitted")),
        )
        .values_list("pk", "is_reference", "assigned", "done")
        .order_by("pk")
    )
    return [ItemRow(*row, disputes=counts.get(row[0])) for row in rows]


@dataclass(frozen=True)
class TrailEvent:
    at: datetime
    who: str
    action: str
    assignment: str  # the clinician's code on the assignment it concerns, or ""
    detail: dict = field(default_factory=dict)


def trail(item_pk: int, blind: bool) -> list[TrailEvent]:
    """An item's whole history, oldest first; on a blind page each event's detail keeps only
    the keys of BLIND_DETAIL_KEYS."""
    rows = list(
        AuditEvent.objects.filter(item_id=item_pk)
        .values_list(
            "at", "actor_id", "actor__username", "action", "assignment__clinician__code", "detail"
        )
        .order_by("at", "id")
    )
    codes = clinician_codes({actor for _at, actor, *_rest in rows if actor})
    events = []
    for at, actor_id, username, action, code, detail in rows:
        detail = detail or {}
        if blind:
            detail = {k: v for k, v in detail.items() if k in BLIND_DETAIL_KEYS}
        who = codes.get(actor_id) or username or "system"
        events.append(TrailEvent(at, who, action, code or "", detail))
    return events


def clinician_codes(user_ids: set[int]) -> dict[int, str]:
    """A clinician acting is shown by code, never by their username (their email)."""
    return dict(Clinician.objects.filter(user_id__in=user_ids).values_list("user_id", "code"))


def submissions(item_pk: int) -> list[dict]:
    """Every submitted version of the item's scores, by clinician code, as plain values."""
    return list(
        Submission.objects.filter(assignment__item_id=item_pk)
        .values(
            "assignment__clinician__code",
            "version",
            "is_current",
            "submitted_at",
            "scores",
            "seconds_on_item",
            "reason",
        )
        .order_by("assignment__clinician__code", "version")
    )


def decisions(item_pk: int) -> list[dict]:
    return list(
        Adjudication.objects.filter(item_id=item_pk)
        .values("decided_at", "dimension", "score", "decided_by__username", "reason")
        .order_by("decided_at", "pk")
    )
