"""The audit trail: every draft, score, revision, assignment, reassignment and adjudication
writes one row, attributable and timestamped. Rows are only ever added."""

from __future__ import annotations

from annotation.models import AuditEvent


def record(actor, action: str, *, study=None, item=None, assignment=None, **detail) -> None:
    AuditEvent.objects.create(**_event(actor, action, study, item, assignment, detail))


def record_assigned(actor, study, assignments) -> None:
    """Every new assignment of a study, in one insert."""
    AuditEvent.objects.bulk_create(
        AuditEvent(**_event(actor, "assigned", study, a.item, a, {"clinician": a.clinician.code}))
        for a in assignments
    )


def _event(actor, action, study, item, assignment, detail) -> dict:
    if assignment is not None and item is None:
        item = assignment.item
    if item is not None and study is None:
        study = item.study
    return {
        "actor": actor if getattr(actor, "pk", None) else None,
        "action": action,
        "study": study,
        "item": item,
        "assignment": assignment,
        "detail": detail,
    }


def trail(item) -> list[AuditEvent]:
    """An item's whole history, oldest first, for the researcher's audit page."""
    return list(
        AuditEvent.objects.filter(item=item).select_related("actor", "assignment__clinician")
    )
