"""One file for every rating: jury, judges and clinicians side by side (`export_scores`)."""

import csv
import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from annotation import reviewing
from annotation.studies import StudySpec, create_study
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from ratings.table import read_ratings_file

pytestmark = pytest.mark.django_db


def test_clinician_rows_join_the_score_export(sim_models, researcher, tmp_path):
    cases = create_case_set("export-cases", 2, 3)
    run = launch_run(suite=cases, models=sim_models[:1], max_turns=6, enqueue=False)
    execute_inline(run)
    user = User.objects.create_user("dr-export", password="pw-123456")
    user.groups.add(Group.objects.get_or_create(name="clinician")[0])
    clinician = reviewing.clinician_for(user)
    trace = run.traces.first()
    create_study(
        StudySpec(status="open", name="export", overlap={"clinical": 1}),
        [trace.pk],
        [clinician],
        None,
    )
    assignment = clinician.assignments.get()
    dimensions = reviewing.dimensions_of(assignment, reviewing.rubric_of(assignment.item.study))
    scores = {d.key: 4 for d in dimensions}
    scores["triage_quality"] = "na"
    reviewing.submit(assignment, {"scores": scores}, "n1", 10, user)
    out = tmp_path / "scores.csv"
    call_command("export_scores", "--out", str(out), stdout=io.StringIO())
    rows = [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]
    assert {r["rater"] for r in rows} == {clinician.code}
    assert len(rows) == len(dimensions)
    triage = next(r for r in rows if r["dimension"] == "triage_quality")
    assert (triage["score"], triage["status"]) == ("", "not_applicable")
    safety = next(r for r in rows if r["dimension"] == "clinical_safety")
    assert (safety["score"], safety["status"], safety["conversation"]) == ("4", "ok", str(trace.pk))
    call_command("export_scores", "--out", str(out), "--no-clinicians", stdout=io.StringIO())
    assert not [r for r in csv.DictReader(out.open()) if r["rater_kind"] == "clinician"]


def test_both_exports_read_back_as_the_submitted_ratings(sim_models, tmp_path):
    """export_scores and export_study write through the one ratings writer, and the one
    reader (the `agreement` command's) gives back what the clinician submitted."""
    cases = create_case_set("export-back", 2, 3)
    run = launch_run(suite=cases, models=sim_models[:1], max_turns=6, enqueue=False)
    execute_inline(run)
    user = User.objects.create_user("dr-back", password="pw-123456")
    user.groups.add(Group.objects.get_or_create(name="clinician")[0])
    clinician = reviewing.clinician_for(user)
    trace = run.traces.first()
    study = create_study(
        StudySpec(status="open", name="back", overlap={"clinical": 1}),
        [trace.pk],
        [clinician],
        None,
    )
    assignment = clinician.assignments.get()
    dimensions = reviewing.dimensions_of(assignment, reviewing.rubric_of(study))
    scores = {d.key: 1 + i % 5 for i, d in enumerate(dimensions)} | {"triage_quality": "na"}
    reviewing.submit(assignment, {"scores": scores}, "n1", 10, user)
    submitted = {d: (None if v == "na" else v) for d, v in scores.items()}
    scores_csv, study_csv = tmp_path / "scores.csv", tmp_path / "study.csv"
    call_command("export_scores", "--out", str(scores_csv), stdout=io.StringIO())
    call_command("export_study", str(study.pk), "--out", str(study_csv), stdout=io.StringIO())
    for path, item in ((scores_csv, str(trace.pk)), (study_csv, str(assignment.item_id))):
        read = read_ratings_file(path)
        assert {(r.item, r.rater, r.dimension): r.score for r in read.ratings} == {
            (item, clinician.code, d): v for d, v in submitted.items()
        }, path.name
