"""Who may score a study that requires calibration: a clinician passes a calibration round on
their track's dimensions (own agreement with the reference and the round's alpha, DESIGN §6),
which qualifies them for that rubric version. The round's report is computed with the pure
`calibration` module; whether someone is qualified is read from the `Qualification` records
written when a round closes (`annotation.lifecycle`), so later submissions cannot flip it.
"""

from __future__ import annotations

from annotation.models import Clinician, Item, Qualification, Study, Submission
from annotation.pure.calibration import (
    RoundReport,
    Thresholds,
    cannot_qualify,
    round_report,
    stand_in_references,
)
from ratings.rating import Rating
from ratings.rating import ratings_of as submission_ratings
from ratings.rubric import Rubric
from ratings.rubric import cached_rubric as load_rubric


def ratings_of(study: Study) -> list[Rating]:
    """Every clinician's current score on every scored dimension of the study's items."""
    rows = Submission.objects.current().filter(assignment__item__study=study)
    scored = _scored_dimensions(study)
    return [
        rating
        for code, item_id, scores in rows.values_list(
            "assignment__clinician__code", "assignment__item_id", "scores"
        )
        for rating in submission_ratings(
            str(item_id), code, {d: s for d, s in scores.items() if d in scored}
        )
    ]


def references_of(study: Study) -> dict[str, dict[str, int | None]]:
    return {
        str(pk): {dim: (ref or {}).get("score") for dim, ref in reference.items()}
        for pk, reference in Item.objects.filter(study=study, reference__isnull=False).values_list(
            "pk", "reference"
        )
    }


def report_for(study: Study) -> RoundReport:
    thresholds = Thresholds(study.min_exact, study.min_adjacent, study.min_alpha)
    scale = load_rubric(study.rubric_name, study.rubric_version).scale
    return round_report(ratings_of(study), references_of(study), thresholds, scale)


def is_qualified(clinician: Clinician, rubric_name: str, rubric_version: str) -> bool:
    """A passed round's record for this rubric version, not re-opened by a researcher."""
    return (
        current_qualifications(clinician, rubric_name, rubric_version).filter(passed=True).exists()
    )


def qualified_rubrics(clinician: Clinician) -> set[tuple[str, str]]:
    """(rubric name, version) of every passed round not re-opened: what `is_qualified` asks,
    for all of the clinician's studies in one query."""
    return set(
        Qualification.objects.filter(
            clinician=clinician, passed=True, reopened_at__isnull=True
        ).values_list("rubric_name", "rubric_version")
    )


def current_qualifications(clinician: Clinician, rubric_name: str, rubric_version: str):
    return Qualification.objects.filter(
        clinician=clinician,
        rubric_name=rubric_name,
        rubric_version=rubric_version,
        reopened_at__isnull=True,
    )


def record_of(clinician: Clinician, study: Study) -> Qualification | None:
    return Qualification.objects.filter(clinician=clinician, round=study).first()


def _scored_dimensions(study: Study) -> set[str]:
    return {d.key for d in load_rubric(study.rubric_name, study.rubric_version).scored}


# --- whether a round's design can qualify its clinicians -------------------------------------


def design_blockers(clinicians, rubric: Rubric, n_items: int, thresholds: Thresholds) -> list[str]:
    """Why some of these clinicians could not pass a round of `n_items` items whatever anyone
    scored (empty: each could). The round's own rule is run on its best case: references
    that vary, every clinician scoring exactly as they do. What fails there (one clinician on
    a track, one item: alpha has nothing to compare) fails on any scores. The references
    written are left out on purpose: a clinician can still pass on flat references when the
    others' scores vary, so judging them here would refuse rounds that can qualify."""
    references = stand_in_references(n_items, [d.key for d in rubric.scored], rubric.scale)
    raters = {c.code: [d.key for d in rubric.scored if d.track in c.tracks] for c in clinicians}
    by_reason: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for code, reasons in cannot_qualify(raters, references, thresholds, rubric.scale).items():
        for reason, dimensions in reasons.items():
            labels = tuple(rubric.label(d) for d in dimensions)
            by_reason.setdefault((reason, labels), []).append(code)
    return [
        f"{', '.join(sorted(codes))} cannot pass even by scoring exactly as the reference"
        + (f" on {', '.join(labels)}" if labels else "")
        + f": {reason}."
        for (reason, labels), codes in by_reason.items()
    ]


def round_blockers(study: Study, clinicians) -> list[str]:
    """`design_blockers` for a round as it stands: its clinicians and its items."""
    thresholds = Thresholds(study.min_exact, study.min_adjacent, study.min_alpha)
    rubric = load_rubric(study.rubric_name, study.rubric_version)
    return design_blockers(clinicians, rubric, study.items.count(), thresholds)
