"""The audit trail: every draft, score, revision, assignment, reassignment and adjudication
writes one row, attributable and timestamped. Rows are only ever added."""

from __future__ import annotations

from annotation.models import AuditEvent, Item


def record(actor, action: str, *, study=None, item=None, assignment=None, **detail) -> None:
    AuditEvent.objects.create(**_event(actor, action, study, item, assignment, detail))


def record_assigned(actor, study, assignments) -> None:
    """Every new assignment of a study, in one insert."""
    AuditEvent.objects.bulk_create(
        AuditEvent(**_event(actor, "assigned", study, a.item, a, {"clinician": a.clinician.code}))
        for a in assignments
    )


def _event(actor, action, study, item, assignment, detail) -> dict:
    # Ids, not rows: an autosave writes one of these, and loading the item and study for it
    # cost two queries each time.
    item_id = item.pk if item is not None else getattr(assignment, "item_id", None)
    if study is not None:
        study_id = study.pk
    elif item is not None:
        study_id = item.study_id
    elif item_id is not None:
        study_id = Item.objects.values_list("study_id", flat=True).get(pk=item_id)
    else:
        study_id = None
    return {
        "actor": actor if getattr(actor, "pk", None) else None,
        "action": action,
        "study_id": study_id,
        "item_id": item_id,
        "assignment": assignment,
        "detail": detail,
    }


def trail(item) -> list[AuditEvent]:
    """An item's whole history, oldest first, for the researcher's audit page."""
    return list(
        AuditEvent.objects.filter(item=item).select_related("actor", "assignment__clinician")
    )
