"""One file for every rating: jury, judges and clinicians side by side (`export_scores`)."""

import csv
import io

import pytest
from django.core.management import call_command

from ratings.table import read_ratings_file
from tests.factories import one_review

pytestmark = pytest.mark.django_db


def test_clinician_rows_join_the_score_export(sim_models, researcher, tmp_path):
    review = one_review(sim_models[0], "export-cases", status="open")
    review.submit({d.key: 4 for d in review.dimensions} | {"triage_quality": "na"})
    out = tmp_path / "scores.csv"
    call_command("export_scores", "--out", str(out), stdout=io.StringIO())
    rows = [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]
    assert {r["rater"] for r in rows} == {review.clinician.code}
    assert len(rows) == len(review.dimensions)
    triage = next(r for r in rows if r["dimension"] == "triage_quality")
    assert (triage["score"], triage["status"]) == ("", "not_applicable")
    safety = next(r for r in rows if r["dimension"] == "clinical_safety")
    expected = ("4", "ok", str(review.trace.pk))
    assert (safety["score"], safety["status"], safety["conversation"]) == expected
    call_command("export_scores", "--out", str(out), "--no-clinicians", stdout=io.StringIO())
    assert not [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]


def test_both_exports_read_back_as_the_submitted_ratings(sim_models, tmp_path):
    """export_scores and export_study write through the one ratings writer, and the one
    reader (the `agreement` command's) gives back what the clinician submitted."""
    review = one_review(sim_models[0], "export-back", status="open")
    scores = {d.key: 1 + i % 5 for i, d in enumerate(review.dimensions)}
    review.submit(scores | {"triage_quality": "na"})
    submitted = scores | {"triage_quality": None}
    scores_csv, study_csv = tmp_path / "scores.csv", tmp_path / "study.csv"
    call_command("export_scores", "--out", str(scores_csv), stdout=io.StringIO())
    call_command(
        "export_study", str(review.study.pk), "--out", str(study_csv), stdout=io.StringIO()
    )
    items = ((scores_csv, str(review.trace.pk)), (study_csv, str(review.assignment.item_id)))
    for path, item in items:
        read = read_ratings_file(path)
        assert {(r.item, r.rater, r.dimension): r.score for r in read.ratings} == {
            (item, review.clinician.code, d): v for d, v in submitted.items()
        }, path.name
