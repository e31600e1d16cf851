"""The setup every consensus test shares: a clinician qualified on a round, and the round that
follows it, a calibration round with feedback at once whose references may be the earlier
round's consensus (used by test_research_views, test_blinding and browser/test_consensus)."""

from __future__ import annotations

from annotation.models import Qualification, Study
from annotation.studies import StudySpec, create_study


def qualify(clinician, round_: Study) -> Qualification:
    """`clinician` passed `round_` on its rubric, on their own track."""
    return Qualification.objects.create(
        clinician=clinician,
        round=round_,
        rubric_name=round_.rubric_name,
        rubric_version=round_.rubric_version,
        track=clinician.track,
        results={},
        passed=True,
    )


def next_round(
    trace_ids, clinicians, researcher, *, name: str, overlap: dict, status: str = "draft"
) -> Study:
    """A calibration round on these conversations for these clinicians, feedback at once."""
    return create_study(
        StudySpec(
            status=status,
            name=name,
            kind=Study.Kind.CALIBRATION,
            overlap=overlap,
            feedback=Study.Feedback.IMMEDIATE,
        ),
        list(trace_ids),
        clinicians,
        researcher,
    )
