"""Clinicians' scores as a flat CSV: one row per item × rater × dimension (DESIGN §8), the shape
every statistics package reads without reshaping.

Raters appear by pseudonymous code only. "Not applicable" is an empty score with
`not_applicable` set, never a number. By default only current submissions are written, so a
revised score counts once; `all_versions` adds the superseded ones, marked by `version`.
The conversation's columns (trace, model, case) are read as plain values: a trace's message
log is never loaded for an export.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from annotation.models import Assignment, Study, Submission
from ratings.rating import ratings_of
from ratings.rubric import cached_rubric
from ratings.table import scores_row, write_ratings

COLUMNS = (
    "study",
    "study_kind",
    "item",
    "trace_id",
    "model",
    "case_id",
    "rater_kind",
    "rater",
    "track",
    "dimension",
    "score",
    "not_applicable",
    "version",
    "submitted_at",
    "seconds_on_item",
)


def score_rows(study: Study, all_versions: bool = False) -> Iterator[dict]:
    rubric = cached_rubric(study.rubric_name, study.rubric_version)
    order = {d.key: i for i, d in enumerate(rubric.dimensions)}
    track = {d.key: d.track for d in rubric.dimensions}
    if all_versions:
        submissions = Submission.objects.filter(assignment__in=Assignment.objects.live())
    else:
        submissions = Submission.objects.current()
    submissions = submissions.filter(assignment__item__study=study)
    for row in submissions.values(
        "assignment__item_id",
        "assignment__item__trace_id",
        "assignment__item__trace__model_name",
        "assignment__item__trace__task__task_id",
        "assignment__clinician__code",
        "scores",
        "version",
        "submitted_at",
        "seconds_on_item",
    ).order_by("assignment__item_id", "assignment__clinician__code", "version"):
        for dimension in sorted(row["scores"], key=lambda d: (order.get(d, len(order)), d)):
            score = row["scores"][dimension]
            yield {
                "study": study.pk,
                "study_kind": study.kind,
                "item": row["assignment__item_id"],
                "trace_id": row["assignment__item__trace_id"],
                "model": row["assignment__item__trace__model_name"],
                "case_id": row["assignment__item__trace__task__task_id"],
                "rater_kind": "clinician",
                "rater": row["assignment__clinician__code"],
                "track": track.get(dimension, ""),
                "dimension": dimension,
                "score": "" if score is None else score,
                "not_applicable": int(score is None),
                "version": row["version"],
                "submitted_at": row["submitted_at"].isoformat(),
                "seconds_on_item": row["seconds_on_item"],
            }


def write_csv(study: Study, out: TextIO, all_versions: bool = False) -> int:
    """Write the header and every row; returns the number of rows (header not counted)."""
    return write_ratings(out, COLUMNS, score_rows(study, all_versions), lineterminator="\n")


def clinician_rating_rows(run_id: int | None = None) -> Iterator[dict]:
    """Clinicians' current scores in the jury export's columns (`jury.export.COLUMNS`), so one
    file holds jury, judge and clinician ratings side by side. Not applicable is an empty score
    with that status; `repetition` is empty (a clinician reads a conversation once)."""
    submissions = Submission.objects.current()
    if run_id is not None:
        submissions = submissions.filter(assignment__item__trace__run_id=run_id)
    for trace_id, code, scores, rubric_version in submissions.values_list(
        "assignment__item__trace_id",
        "assignment__clinician__code",
        "scores",
        "assignment__item__study__rubric_version",
    ).order_by("assignment__item__trace_id", "assignment__clinician__code"):
        for rating in ratings_of(trace_id, code, dict(sorted(scores.items()))):
            yield scores_row(rating, rubric_version=rubric_version, repetition="")
