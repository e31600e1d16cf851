"""A study's or calibration round's life: draft → open → closed.

A draft is invisible to clinicians. It opens only when its checklist holds: every reference
item has a complete reference, every clinician of a study that requires calibration holds a
qualification, each track has enough clinicians for its clinicians-per-item setting, and a
round's every clinician could pass it (`qualification.round_blockers`: the round's rule, its
alpha included, run on the best case of its design).
Closing a calibration round writes each clinician's qualification record, once.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from annotation import adjudication, audit
from annotation.models import Assignment, Clinician, Qualification, Study
from annotation.qualification import is_qualified, report_for, round_blockers
from ratings.rubric import cached_rubric


class LifecycleError(ValueError):
    """A change of state the study's checklist or status does not allow; the message says why."""


@dataclass(frozen=True)
class Check:
    label: str
    ok: bool
    detail: str


def checklist(study: Study) -> list[Check]:
    """What must hold before the study opens, each with why it does or does not."""
    checks = [_references(study), _qualified(study), _overlap(study)]
    if study.is_calibration:
        checks.append(_qualification_reachable(study))
    return checks


def problems(study: Study) -> list[str]:
    return [f"{c.label}: {c.detail}" for c in checklist(study) if not c.ok]


def open_study(study: Study, actor) -> None:
    if study.status == Study.Status.OPEN:
        return
    if study.status == Study.Status.CLOSED and study.is_calibration:
        raise LifecycleError("A closed round has written its results; create a new round.")
    reasons = problems(study)
    if reasons:
        raise LifecycleError("It cannot open yet. " + " ".join(reasons))
    _set_status(study, Study.Status.OPEN, actor)


def close_study(study: Study, actor) -> int:
    """Close it; for a round, write the qualification of every clinician in it (how many)."""
    if study.status == Study.Status.CLOSED:
        return 0
    with transaction.atomic():
        _set_status(study, Study.Status.CLOSED, actor)
        return write_qualifications(study) if study.is_calibration else 0


def write_qualifications(study: Study) -> int:
    """One record per clinician of the round, from the round's report as it stands now; a
    record already written is left as it is."""
    report = report_for(study)
    rubric = cached_rubric(study.rubric_name, study.rubric_version)
    written = 0
    for clinician in _assigned(study):
        if Qualification.objects.filter(clinician=clinician, round=study).exists():
            continue
        wanted = [d.key for d in rubric.scored if d.track in clinician.tracks]
        finished = not _open_items(clinician, study)
        mine = report.clinicians.get(clinician.code, {}) if finished else {}
        results = {key: _result(mine.get(key), report.dimensions.get(key)) for key in wanted}
        Qualification.objects.create(
            clinician=clinician,
            round=study,
            rubric_name=study.rubric_name,
            rubric_version=study.rubric_version,
            track=clinician.track,
            results=results,
            passed=bool(results) and all(r["passed"] for r in results.values()),
        )
        written += 1
    return written


def reopen_qualification(qualification: Qualification, reason: str, actor) -> None:
    """Take a qualification out of use (the clinician calibrates again); its result stays."""
    if not reason.strip():
        raise LifecycleError("Say why you are re-opening this qualification.")
    if qualification.reopened_at is not None:
        return
    qualification.reopened_at = timezone.now()
    qualification.reopened_by = actor
    qualification.reopened_reason = reason.strip()
    qualification.save(update_fields=["reopened_at", "reopened_by", "reopened_reason"])
    audit.record(
        actor,
        "qualification_reopened",
        study=qualification.round,
        clinician=qualification.clinician.code,
        reason=reason.strip(),
    )


def _set_status(study: Study, status: str, actor) -> None:
    Study.objects.filter(pk=study.pk).update(status=status)
    study.status = status
    audit.record(actor, f"study_{status}", study=study)


def _result(result, alpha) -> dict:
    if result is None:
        return {
            "passed": False,
            "exact": None,
            "adjacent": None,
            "alpha": None,
            "reason": "not finished",
        }
    return {
        "passed": result.passed,
        "exact": result.exact,
        "adjacent": result.adjacent,
        "alpha": alpha.alpha if alpha else None,
        "reason": result.reason or "",
    }


def _open_items(clinician: Clinician, study: Study) -> bool:
    return clinician.assignments.filter(item__study=study, status=Assignment.Status.OPEN).exists()


def _references(study: Study) -> Check:
    gaps = adjudication.reference_gaps(study)
    missing = sum(1 for g in gaps.values() if g)
    label = "References complete"
    if not gaps:
        return Check(label, True, "no reference items")
    if missing:
        return Check(label, False, f"{missing} of {len(gaps)} reference items lack a reference.")
    return Check(label, True, f"all {len(gaps)} reference items have one.")


def _qualified(study: Study) -> Check:
    label = "Clinicians qualified"
    if study.is_calibration or not study.require_calibration:
        return Check(label, True, "not required")
    unqualified = [
        c.code
        for c in _assigned(study)
        if not is_qualified(c, study.rubric_name, study.rubric_version)
    ]
    if unqualified:
        verb = "has" if len(unqualified) == 1 else "have"
        return Check(
            label, False, f"{', '.join(unqualified)} {verb} not passed a calibration round."
        )
    return Check(label, True, "every clinician has passed a calibration round.")


def _overlap(study: Study) -> Check:
    label = "Overlap reachable"
    clinicians = _assigned(study)
    short = [
        f"{track} asks for {wanted} per item, {have} clinician{'s' if have != 1 else ''} cover it"
        for track, wanted in (study.overlap or {}).items()
        if (have := sum(track in c.tracks for c in clinicians)) < int(wanted)
    ]
    if short:
        return Check(label, False, "; ".join(short) + ".")
    return Check(label, True, "enough clinicians in every track.")


def _qualification_reachable(study: Study) -> Check:
    """A round that cannot qualify a clinician tells them "not yet" whatever they score."""
    label = "Qualification reachable"
    blockers = round_blockers(study, _assigned(study))
    if blockers:
        return Check(label, False, " ".join(blockers))
    return Check(label, True, "each clinician can pass by scoring as the reference does.")


def _assigned(study: Study) -> list[Clinician]:
    live = [Assignment.Status.OPEN, Assignment.Status.SUBMITTED]
    return list(
        Clinician.objects.filter(
            assignments__item__study=study, assignments__status__in=live
        ).distinct()
    )
